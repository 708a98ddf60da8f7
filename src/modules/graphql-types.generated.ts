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

/** Conditions on id, combined with AND. */
export type UserIdFilter = {
  eq?: InputMaybe<Scalars['Int']['input']>;
  ne?: InputMaybe<Scalars['Int']['input']>;
  gt?: InputMaybe<Scalars['Int']['input']>;
  gte?: InputMaybe<Scalars['Int']['input']>;
  lt?: InputMaybe<Scalars['Int']['input']>;
  lte?: InputMaybe<Scalars['Int']['input']>;
  in?: InputMaybe<Array<Scalars['Int']['input']>>;
};

/** Conditions on name, combined with AND. */
export type UserNameFilter = {
  eq?: InputMaybe<Scalars['String']['input']>;
  ne?: InputMaybe<Scalars['String']['input']>;
  gt?: InputMaybe<Scalars['String']['input']>;
  gte?: InputMaybe<Scalars['String']['input']>;
  lt?: InputMaybe<Scalars['String']['input']>;
  lte?: InputMaybe<Scalars['String']['input']>;
  in?: InputMaybe<Array<Scalars['String']['input']>>;
  contains?: InputMaybe<Scalars['String']['input']>;
};

/** Conditions on email, combined with AND. Administrators only. */
export type UserEmailFilter = {
  eq?: InputMaybe<Scalars['String']['input']>;
  ne?: InputMaybe<Scalars['String']['input']>;
  gt?: InputMaybe<Scalars['String']['input']>;
  gte?: InputMaybe<Scalars['String']['input']>;
  lt?: InputMaybe<Scalars['String']['input']>;
  lte?: InputMaybe<Scalars['String']['input']>;
  in?: InputMaybe<Array<Scalars['String']['input']>>;
  contains?: InputMaybe<Scalars['String']['input']>;
};

/** Conditions on age, combined with AND. */
export type UserAgeFilter = {
  eq?: InputMaybe<Scalars['Int']['input']>;
  ne?: InputMaybe<Scalars['Int']['input']>;
  gt?: InputMaybe<Scalars['Int']['input']>;
  gte?: InputMaybe<Scalars['Int']['input']>;
  lt?: InputMaybe<Scalars['Int']['input']>;
  lte?: InputMaybe<Scalars['Int']['input']>;
  in?: InputMaybe<Array<Scalars['Int']['input']>>;
  null?: InputMaybe<Scalars['Boolean']['input']>;
};

/** Conditions on role (one of user, admin), combined with AND. */
export type UserRoleFilter = {
  eq?: InputMaybe<Scalars['String']['input']>;
  ne?: InputMaybe<Scalars['String']['input']>;
  in?: InputMaybe<Array<Scalars['String']['input']>>;
};

/** Conditions on status (one of active, inactive, suspended), combined with AND. */
export type UserStatusFilter = {
  eq?: InputMaybe<Scalars['String']['input']>;
  ne?: InputMaybe<Scalars['String']['input']>;
  in?: InputMaybe<Array<Scalars['String']['input']>>;
};

/** Conditions on emailVerified, combined with AND. */
export type UserEmailVerifiedFilter = {
  eq?: InputMaybe<Scalars['Boolean']['input']>;
  ne?: InputMaybe<Scalars['Boolean']['input']>;
};

/** Conditions on createdAt (ISO 8601 with a zone), combined with AND. */
export type UserCreatedAtFilter = {
  eq?: InputMaybe<Scalars['String']['input']>;
  ne?: InputMaybe<Scalars['String']['input']>;
  gt?: InputMaybe<Scalars['String']['input']>;
  gte?: InputMaybe<Scalars['String']['input']>;
  lt?: InputMaybe<Scalars['String']['input']>;
  lte?: InputMaybe<Scalars['String']['input']>;
  in?: InputMaybe<Array<Scalars['String']['input']>>;
};

/** Conditions on users, combined with AND (docs/QUERYING.md). */
export type UserFilter = {
  id?: InputMaybe<UserIdFilter>;
  name?: InputMaybe<UserNameFilter>;
  email?: InputMaybe<UserEmailFilter>;
  age?: InputMaybe<UserAgeFilter>;
  role?: InputMaybe<UserRoleFilter>;
  status?: InputMaybe<UserStatusFilter>;
  emailVerified?: InputMaybe<UserEmailVerifiedFilter>;
  createdAt?: InputMaybe<UserCreatedAtFilter>;
};

/** An order of users: a field and a direction; ties break by id, nulls last. */
export type UserOrder =
  | 'ID_ASC'
  | 'ID_DESC'
  | 'NAME_ASC'
  | 'NAME_DESC'
  | 'EMAIL_ASC'
  | 'EMAIL_DESC'
  | 'AGE_ASC'
  | 'AGE_DESC'
  | 'ROLE_ASC'
  | 'ROLE_DESC'
  | 'STATUS_ASC'
  | 'STATUS_DESC'
  | 'EMAIL_VERIFIED_ASC'
  | 'EMAIL_VERIFIED_DESC'
  | 'CREATED_AT_ASC'
  | 'CREATED_AT_DESC';

/** One page of User nodes and where the next page starts. */
export type UserConnection = {
  __typename?: 'UserConnection';
  nodes: Array<User>;
  pageInfo: PageInfo;
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

/** Conditions on id, combined with AND. */
export type PostIdFilter = {
  eq?: InputMaybe<Scalars['Int']['input']>;
  ne?: InputMaybe<Scalars['Int']['input']>;
  gt?: InputMaybe<Scalars['Int']['input']>;
  gte?: InputMaybe<Scalars['Int']['input']>;
  lt?: InputMaybe<Scalars['Int']['input']>;
  lte?: InputMaybe<Scalars['Int']['input']>;
  in?: InputMaybe<Array<Scalars['Int']['input']>>;
};

/** Conditions on authorId, combined with AND. */
export type PostAuthorIdFilter = {
  eq?: InputMaybe<Scalars['Int']['input']>;
  ne?: InputMaybe<Scalars['Int']['input']>;
  in?: InputMaybe<Array<Scalars['Int']['input']>>;
};

/** Conditions on title, combined with AND. */
export type PostTitleFilter = {
  eq?: InputMaybe<Scalars['String']['input']>;
  ne?: InputMaybe<Scalars['String']['input']>;
  gt?: InputMaybe<Scalars['String']['input']>;
  gte?: InputMaybe<Scalars['String']['input']>;
  lt?: InputMaybe<Scalars['String']['input']>;
  lte?: InputMaybe<Scalars['String']['input']>;
  in?: InputMaybe<Array<Scalars['String']['input']>>;
  contains?: InputMaybe<Scalars['String']['input']>;
};

/** Conditions on createdAt (ISO 8601 with a zone), combined with AND. */
export type PostCreatedAtFilter = {
  eq?: InputMaybe<Scalars['String']['input']>;
  ne?: InputMaybe<Scalars['String']['input']>;
  gt?: InputMaybe<Scalars['String']['input']>;
  gte?: InputMaybe<Scalars['String']['input']>;
  lt?: InputMaybe<Scalars['String']['input']>;
  lte?: InputMaybe<Scalars['String']['input']>;
  in?: InputMaybe<Array<Scalars['String']['input']>>;
};

/** Conditions on search, combined with AND. */
export type PostSearchFilter = {
  contains?: InputMaybe<Scalars['String']['input']>;
};

/** Conditions on posts, combined with AND (docs/QUERYING.md). */
export type PostFilter = {
  id?: InputMaybe<PostIdFilter>;
  authorId?: InputMaybe<PostAuthorIdFilter>;
  title?: InputMaybe<PostTitleFilter>;
  createdAt?: InputMaybe<PostCreatedAtFilter>;
  search?: InputMaybe<PostSearchFilter>;
};

/** An order of posts: a field and a direction; ties break by id, nulls last. */
export type PostOrder =
  | 'ID_ASC'
  | 'ID_DESC'
  | 'AUTHOR_ID_ASC'
  | 'AUTHOR_ID_DESC'
  | 'TITLE_ASC'
  | 'TITLE_DESC'
  | 'CREATED_AT_ASC'
  | 'CREATED_AT_DESC';

/** One page of Post nodes and where the next page starts. */
export type PostConnection = {
  __typename?: 'PostConnection';
  nodes: Array<Post>;
  pageInfo: PageInfo;
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
  /** Users by id (limit 1-100), or filtered and ordered as the REST list (docs/QUERYING.md). */
  users: Array<User>;
  /** The same list by key: each page starts right after the one before (`after`: its `pageInfo.endCursor`, with the same filter and orderBy), so any depth costs what the first page costs. */
  usersConnection: UserConnection;
  /** Null when no post has this id. */
  post?: Maybe<Post>;
  /** Posts, newest first, optionally of one author (limit 1-100), or filtered and ordered as the REST list (docs/QUERYING.md). */
  posts: Array<Post>;
  /** The same list by key: each page starts right after the one before (`after`: its `pageInfo.endCursor`, with the same filter and orderBy), so any depth costs what the first page costs. */
  postsConnection: PostConnection;
};


export type QueryUserArgs = {
  id: Scalars['ID']['input'];
};


export type QueryUsersArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
  filter?: InputMaybe<UserFilter>;
  orderBy?: InputMaybe<Array<UserOrder>>;
};


export type QueryUsersConnectionArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<UserFilter>;
  orderBy?: InputMaybe<Array<UserOrder>>;
};


export type QueryPostArgs = {
  id: Scalars['ID']['input'];
};


export type QueryPostsArgs = {
  authorId?: InputMaybe<Scalars['ID']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
  filter?: InputMaybe<PostFilter>;
  orderBy?: InputMaybe<Array<PostOrder>>;
};


export type QueryPostsConnectionArgs = {
  authorId?: InputMaybe<Scalars['ID']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<PostFilter>;
  orderBy?: InputMaybe<Array<PostOrder>>;
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

/** Where a connection's page ends (docs/QUERYING.md, "GraphQL"). */
export type PageInfo = {
  __typename?: 'PageInfo';
  /** Whether more nodes follow this page. */
  hasNextPage: Scalars['Boolean']['output'];
  /** Send as `after` (with the same filter and orderBy) for the next page; null on the last page. */
  endCursor?: Maybe<Scalars['String']['output']>;
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
