// Generated from the GraphQL SDL by `npm run graphql:types` (scripts/graphql-types.ts). Do not edit.
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string | number; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
};

/** A registered user. */
export type User = {
  __typename?: 'User';
  id: Scalars['ID']['output'];
  name: Scalars['String']['output'];
  email: Scalars['String']['output'];
  age?: Maybe<Scalars['Int']['output']>;
  /** The user's posts, newest first (limit 1-100). */
  posts: Array<Post>;
};


/** A registered user. */
export type UserPostsArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
};

export type CreateUserInput = {
  name: Scalars['String']['input'];
  email: Scalars['String']['input'];
  age?: InputMaybe<Scalars['Int']['input']>;
};

export type UpdateUserInput = {
  name?: InputMaybe<Scalars['String']['input']>;
  email?: InputMaybe<Scalars['String']['input']>;
  age?: InputMaybe<Scalars['Int']['input']>;
};

export type Post = {
  __typename?: 'Post';
  id: Scalars['ID']['output'];
  title: Scalars['String']['output'];
  content: Scalars['String']['output'];
  author: User;
  /** The post's comments, oldest first (limit 1-100). */
  comments: Array<Comment>;
  /** ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z. */
  createdAt: Scalars['String']['output'];
};


export type PostCommentsArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
};

export type CreatePostInput = {
  title: Scalars['String']['input'];
  content: Scalars['String']['input'];
  authorId: Scalars['ID']['input'];
};

export type Comment = {
  __typename?: 'Comment';
  id: Scalars['ID']['output'];
  text: Scalars['String']['output'];
  author: User;
  post: Post;
};

export type Query = {
  __typename?: 'Query';
  /** Null when no user has this id. */
  user?: Maybe<User>;
  /** Users by id (limit 1-100). */
  users: Array<User>;
  /** Null when no post has this id. */
  post?: Maybe<Post>;
  /** Posts, newest first, optionally of one author (limit 1-100). */
  posts: Array<Post>;
};


export type QueryUserArgs = {
  id: Scalars['ID']['input'];
};


export type QueryUsersArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryPostArgs = {
  id: Scalars['ID']['input'];
};


export type QueryPostsArgs = {
  authorId?: InputMaybe<Scalars['ID']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
};

export type Mutation = {
  __typename?: 'Mutation';
  /** Sign-up: needs no token. */
  createUser: User;
  /** The user themselves or an admin. */
  updateUser: User;
  /** False when no such user exists. */
  deleteUser: Scalars['Boolean']['output'];
  /** For the caller (or any author, for an admin). */
  createPost: Post;
};


export type MutationCreateUserArgs = {
  input: CreateUserInput;
};


export type MutationUpdateUserArgs = {
  id: Scalars['ID']['input'];
  input: UpdateUserInput;
};


export type MutationDeleteUserArgs = {
  id: Scalars['ID']['input'];
};


export type MutationCreatePostArgs = {
  input: CreatePostInput;
};

export type Subscription = {
  __typename?: 'Subscription';
  /** New posts, of one author when given. */
  postCreated: Post;
  /** New comments of one post. */
  commentAdded: Comment;
  /** Changes to one user. */
  userUpdated: User;
};


export type SubscriptionPostCreatedArgs = {
  authorId?: InputMaybe<Scalars['ID']['input']>;
};


export type SubscriptionCommentAddedArgs = {
  postId: Scalars['ID']['input'];
};


export type SubscriptionUserUpdatedArgs = {
  id: Scalars['ID']['input'];
};
