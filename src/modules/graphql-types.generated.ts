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
  /** One of user, admin. */
  role: Scalars['String']['output'];
  /** One of active, inactive, suspended (a suspended user gets no token). */
  status: Scalars['String']['output'];
  /** Whether an administrator verified the e-mail; false again whenever it changes. */
  emailVerified: Scalars['Boolean']['output'];
  /** ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z. */
  createdAt: Scalars['String']['output'];
  /** When the user last changed, in the format of createdAt. */
  updatedAt: Scalars['String']['output'];
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
export type OrderIdFilter = {
  eq?: InputMaybe<Scalars['Int']['input']>;
  ne?: InputMaybe<Scalars['Int']['input']>;
  gt?: InputMaybe<Scalars['Int']['input']>;
  gte?: InputMaybe<Scalars['Int']['input']>;
  lt?: InputMaybe<Scalars['Int']['input']>;
  lte?: InputMaybe<Scalars['Int']['input']>;
  in?: InputMaybe<Array<Scalars['Int']['input']>>;
};

/** Conditions on status (one of pending, paid, cancelled, refunded), combined with AND. */
export type OrderStatusFilter = {
  eq?: InputMaybe<Scalars['String']['input']>;
  ne?: InputMaybe<Scalars['String']['input']>;
  in?: InputMaybe<Array<Scalars['String']['input']>>;
};

/** Conditions on currency, combined with AND. */
export type OrderCurrencyFilter = {
  eq?: InputMaybe<Scalars['String']['input']>;
  ne?: InputMaybe<Scalars['String']['input']>;
  in?: InputMaybe<Array<Scalars['String']['input']>>;
};

/** Conditions on amount, combined with AND. */
export type OrderAmountFilter = {
  eq?: InputMaybe<Scalars['Float']['input']>;
  ne?: InputMaybe<Scalars['Float']['input']>;
  gt?: InputMaybe<Scalars['Float']['input']>;
  gte?: InputMaybe<Scalars['Float']['input']>;
  lt?: InputMaybe<Scalars['Float']['input']>;
  lte?: InputMaybe<Scalars['Float']['input']>;
  in?: InputMaybe<Array<Scalars['Float']['input']>>;
};

/** Conditions on createdAt (ISO 8601 with a zone), combined with AND. */
export type OrderCreatedAtFilter = {
  eq?: InputMaybe<Scalars['String']['input']>;
  ne?: InputMaybe<Scalars['String']['input']>;
  gt?: InputMaybe<Scalars['String']['input']>;
  gte?: InputMaybe<Scalars['String']['input']>;
  lt?: InputMaybe<Scalars['String']['input']>;
  lte?: InputMaybe<Scalars['String']['input']>;
  in?: InputMaybe<Array<Scalars['String']['input']>>;
};

/** Conditions on paidAt (ISO 8601 with a zone), combined with AND. */
export type OrderPaidAtFilter = {
  eq?: InputMaybe<Scalars['String']['input']>;
  ne?: InputMaybe<Scalars['String']['input']>;
  gt?: InputMaybe<Scalars['String']['input']>;
  gte?: InputMaybe<Scalars['String']['input']>;
  lt?: InputMaybe<Scalars['String']['input']>;
  lte?: InputMaybe<Scalars['String']['input']>;
  in?: InputMaybe<Array<Scalars['String']['input']>>;
  null?: InputMaybe<Scalars['Boolean']['input']>;
};

/** Conditions on customerId, combined with AND. */
export type OrderCustomerIdFilter = {
  eq?: InputMaybe<Scalars['Int']['input']>;
  ne?: InputMaybe<Scalars['Int']['input']>;
  in?: InputMaybe<Array<Scalars['Int']['input']>>;
};

/** Conditions on orders, combined with AND (docs/QUERYING.md). */
export type OrderFilter = {
  id?: InputMaybe<OrderIdFilter>;
  status?: InputMaybe<OrderStatusFilter>;
  currency?: InputMaybe<OrderCurrencyFilter>;
  amount?: InputMaybe<OrderAmountFilter>;
  createdAt?: InputMaybe<OrderCreatedAtFilter>;
  paidAt?: InputMaybe<OrderPaidAtFilter>;
  customerId?: InputMaybe<OrderCustomerIdFilter>;
};

/** An order of orders: a field and a direction; ties break by id, nulls last. */
export type OrderOrder =
  | 'ID_ASC'
  | 'ID_DESC'
  | 'STATUS_ASC'
  | 'STATUS_DESC'
  | 'CURRENCY_ASC'
  | 'CURRENCY_DESC'
  | 'AMOUNT_ASC'
  | 'AMOUNT_DESC'
  | 'CREATED_AT_ASC'
  | 'CREATED_AT_DESC'
  | 'PAID_AT_ASC'
  | 'PAID_AT_DESC'
  | 'CUSTOMER_ID_ASC'
  | 'CUSTOMER_ID_DESC';

/** A group of an aggregate of orders: the values of its groupBy keys. */
export type OrderGroupKey = {
  __typename?: 'OrderGroupKey';
  /** With `groupBy: ["status"]`: the group's status; else null. */
  status?: Maybe<Scalars['String']['output']>;
  /** With `groupBy: ["currency"]`: the group's currency; else null. */
  currency?: Maybe<Scalars['String']['output']>;
  /** With `groupBy: ["customerId"]`: the group's customerId; else null. Administrators only. */
  customerId?: Maybe<Scalars['ID']['output']>;
  /** With `groupBy: ["createdAt:month"]` (or another bucket): the start of the group's bucket, ISO 8601 UTC; else null. `bucket` picks one when groupBy buckets createdAt twice. */
  createdAt?: Maybe<Scalars['String']['output']>;
  /** With `groupBy: ["paidAt:month"]` (or another bucket): the start of the group's bucket, ISO 8601 UTC; else null. `bucket` picks one when groupBy buckets paidAt twice. */
  paidAt?: Maybe<Scalars['String']['output']>;
};


/** A group of an aggregate of orders: the values of its groupBy keys. */
export type OrderGroupKeyCreatedAtArgs = {
  bucket?: InputMaybe<Scalars['String']['input']>;
};


/** A group of an aggregate of orders: the values of its groupBy keys. */
export type OrderGroupKeyPaidAtArgs = {
  bucket?: InputMaybe<Scalars['String']['input']>;
};

/** A measure function over the numeric fields of orders (money in currency units from exact cents; averages rounded half-even to cents). */
export type OrderMeasures = {
  __typename?: 'OrderMeasures';
  amount?: Maybe<Scalars['Float']['output']>;
};

export type OrdersAggregateGroup = {
  __typename?: 'OrdersAggregateGroup';
  key: OrderGroupKey;
  count: Scalars['Int']['output'];
  /** With `measures: ["sum(f)"]` for a numeric field f; else null. */
  sum?: Maybe<OrderMeasures>;
  /** With `measures: ["avg(f)"]` for a numeric field f; else null. */
  avg?: Maybe<OrderMeasures>;
  /** With `measures: ["min(f)"]` for a numeric field f; else null. */
  min?: Maybe<OrderMeasures>;
  /** With `measures: ["max(f)"]` for a numeric field f; else null. */
  max?: Maybe<OrderMeasures>;
};

export type OrdersAggregate = {
  __typename?: 'OrdersAggregate';
  /** How many groups match (data holds the first `limit`). */
  groups: Scalars['Int']['output'];
  data: Array<OrdersAggregateGroup>;
};

/** An order, as v2's REST object (without _links). Its customer or an admin reads it. */
export type Order = {
  __typename?: 'Order';
  id: Scalars['ID']['output'];
  customerId: Scalars['ID']['output'];
  /** The user who placed it (their e-mail as any user read shows it). */
  customer: User;
  /** One of pending, paid, cancelled, refunded. */
  status: Scalars['String']['output'];
  /** The lines, each with the name and unit price at the time of purchase (at most 100). */
  items: Array<OrderItem>;
  /** The sum of the lines, in currency units, at most two decimals. */
  amount: Scalars['Float']['output'];
  currency: Scalars['String']['output'];
  /** ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z. */
  createdAt: Scalars['String']['output'];
  updatedAt: Scalars['String']['output'];
  paidAt?: Maybe<Scalars['String']['output']>;
  cancelledAt?: Maybe<Scalars['String']['output']>;
  refundedAt?: Maybe<Scalars['String']['output']>;
};

export type OrderItem = {
  __typename?: 'OrderItem';
  productId: Scalars['ID']['output'];
  product: Product;
  name: Scalars['String']['output'];
  quantity: Scalars['Int']['output'];
  /** In currency units, as it was when the order was placed. */
  unitPrice: Scalars['Float']['output'];
};

export type OrderItemInput = {
  productId: Scalars['ID']['input'];
  quantity: Scalars['Int']['input'];
};

/** REST's POST /orders body: each product at most once; the amount is computed from current prices. */
export type CreateOrderInput = {
  items: Array<OrderItemInput>;
  /** Must be the store currency when given. */
  currency?: InputMaybe<Scalars['String']['input']>;
  /** Admins only: place the order for this user. */
  customerId?: InputMaybe<Scalars['ID']['input']>;
};

/** Conditions on price, combined with AND. */
export type ProductPriceFilter = {
  eq?: InputMaybe<Scalars['Float']['input']>;
  ne?: InputMaybe<Scalars['Float']['input']>;
  gt?: InputMaybe<Scalars['Float']['input']>;
  gte?: InputMaybe<Scalars['Float']['input']>;
  lt?: InputMaybe<Scalars['Float']['input']>;
  lte?: InputMaybe<Scalars['Float']['input']>;
  in?: InputMaybe<Array<Scalars['Float']['input']>>;
};

/** Conditions on stock, combined with AND. */
export type ProductStockFilter = {
  eq?: InputMaybe<Scalars['Int']['input']>;
  ne?: InputMaybe<Scalars['Int']['input']>;
  gt?: InputMaybe<Scalars['Int']['input']>;
  gte?: InputMaybe<Scalars['Int']['input']>;
  lt?: InputMaybe<Scalars['Int']['input']>;
  lte?: InputMaybe<Scalars['Int']['input']>;
  in?: InputMaybe<Array<Scalars['Int']['input']>>;
};

/** Conditions on name, combined with AND. */
export type ProductNameFilter = {
  eq?: InputMaybe<Scalars['String']['input']>;
  ne?: InputMaybe<Scalars['String']['input']>;
  gt?: InputMaybe<Scalars['String']['input']>;
  gte?: InputMaybe<Scalars['String']['input']>;
  lt?: InputMaybe<Scalars['String']['input']>;
  lte?: InputMaybe<Scalars['String']['input']>;
  in?: InputMaybe<Array<Scalars['String']['input']>>;
  contains?: InputMaybe<Scalars['String']['input']>;
};

/** Conditions on category, combined with AND. */
export type ProductCategoryFilter = {
  eq?: InputMaybe<Scalars['String']['input']>;
  ne?: InputMaybe<Scalars['String']['input']>;
  in?: InputMaybe<Array<Scalars['String']['input']>>;
};

/** Conditions on createdAt (ISO 8601 with a zone), combined with AND. */
export type ProductCreatedAtFilter = {
  eq?: InputMaybe<Scalars['String']['input']>;
  ne?: InputMaybe<Scalars['String']['input']>;
  gt?: InputMaybe<Scalars['String']['input']>;
  gte?: InputMaybe<Scalars['String']['input']>;
  lt?: InputMaybe<Scalars['String']['input']>;
  lte?: InputMaybe<Scalars['String']['input']>;
  in?: InputMaybe<Array<Scalars['String']['input']>>;
};

/** Conditions on products, combined with AND (docs/QUERYING.md). */
export type ProductFilter = {
  price?: InputMaybe<ProductPriceFilter>;
  stock?: InputMaybe<ProductStockFilter>;
  name?: InputMaybe<ProductNameFilter>;
  category?: InputMaybe<ProductCategoryFilter>;
  createdAt?: InputMaybe<ProductCreatedAtFilter>;
};

/** An order of products: a field and a direction; ties break by id, nulls last. */
export type ProductOrder =
  | 'PRICE_ASC'
  | 'PRICE_DESC'
  | 'NAME_ASC'
  | 'NAME_DESC'
  | 'CREATED_AT_ASC'
  | 'CREATED_AT_DESC';

/** A group of an aggregate of products: the values of its groupBy keys. */
export type ProductGroupKey = {
  __typename?: 'ProductGroupKey';
  /** With `groupBy: ["category"]`: the group's category; else null. */
  category?: Maybe<Scalars['String']['output']>;
  /** With `groupBy: ["createdAt:month"]` (or another bucket): the start of the group's bucket, ISO 8601 UTC; else null. `bucket` picks one when groupBy buckets createdAt twice. */
  createdAt?: Maybe<Scalars['String']['output']>;
};


/** A group of an aggregate of products: the values of its groupBy keys. */
export type ProductGroupKeyCreatedAtArgs = {
  bucket?: InputMaybe<Scalars['String']['input']>;
};

/** A measure function over the numeric fields of products (money in currency units from exact cents; averages rounded half-even to cents). */
export type ProductMeasures = {
  __typename?: 'ProductMeasures';
  price?: Maybe<Scalars['Float']['output']>;
  stock?: Maybe<Scalars['Float']['output']>;
};

export type ProductsAggregateGroup = {
  __typename?: 'ProductsAggregateGroup';
  key: ProductGroupKey;
  count: Scalars['Int']['output'];
  /** With `measures: ["sum(f)"]` for a numeric field f; else null. */
  sum?: Maybe<ProductMeasures>;
  /** With `measures: ["avg(f)"]` for a numeric field f; else null. */
  avg?: Maybe<ProductMeasures>;
  /** With `measures: ["min(f)"]` for a numeric field f; else null. */
  min?: Maybe<ProductMeasures>;
  /** With `measures: ["max(f)"]` for a numeric field f; else null. */
  max?: Maybe<ProductMeasures>;
};

export type ProductsAggregate = {
  __typename?: 'ProductsAggregate';
  /** How many groups match (data holds the first `limit`). */
  groups: Scalars['Int']['output'];
  data: Array<ProductsAggregateGroup>;
};

/** A product of the catalogue, as v2's REST object (without _links). Reads are public. */
export type Product = {
  __typename?: 'Product';
  id: Scalars['ID']['output'];
  name: Scalars['String']['output'];
  category: Scalars['String']['output'];
  /** In currency units, at most two decimals (stored exactly in cents). */
  price: Scalars['Float']['output'];
  stock: Scalars['Int']['output'];
  /** An http(s) URL, or null. */
  image?: Maybe<Scalars['String']['output']>;
  description?: Maybe<Scalars['String']['output']>;
  /** ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z. */
  createdAt: Scalars['String']['output'];
  /** When the product last changed, in the format of createdAt. */
  updatedAt: Scalars['String']['output'];
  /** With the list's `search`: how well the product matches it (higher is better; compare within one list only). Null otherwise. */
  searchScore?: Maybe<Scalars['Float']['output']>;
  /** With the list's `search`: each field named (name, category, description), its text HTML-escaped with the matched terms in <mark>…</mark>, cut to about 30 words around the best match, as REST's `_search.highlights`. Null otherwise. */
  highlights?: Maybe<Array<SearchHighlight>>;
};


/** A product of the catalogue, as v2's REST object (without _links). Reads are public. */
export type ProductHighlightsArgs = {
  fields: Array<Scalars['String']['input']>;
};

/** A new product: the rules of REST's POST /products (price at most two decimals). */
export type CreateProductInput = {
  name: Scalars['String']['input'];
  category: Scalars['String']['input'];
  price: Scalars['Float']['input'];
  stock: Scalars['Int']['input'];
  image?: InputMaybe<Scalars['String']['input']>;
  description?: InputMaybe<Scalars['String']['input']>;
};

/** Only the fields given change (REST's PATCH); {} changes nothing. */
export type UpdateProductInput = {
  name?: InputMaybe<Scalars['String']['input']>;
  category?: InputMaybe<Scalars['String']['input']>;
  price?: InputMaybe<Scalars['Float']['input']>;
  stock?: InputMaybe<Scalars['Int']['input']>;
  image?: InputMaybe<Scalars['String']['input']>;
  description?: InputMaybe<Scalars['String']['input']>;
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
  /** With the list's `search`: how well the post matches it (higher is better; compare within one list only). Null otherwise. */
  searchScore?: Maybe<Scalars['Float']['output']>;
  /** With the list's `search`: each field named (title, content), its text HTML-escaped with the matched terms in <mark>…</mark>, cut to about 30 words around the best match, as REST's `_search.highlights`. Null otherwise. */
  highlights?: Maybe<Array<SearchHighlight>>;
};


export type PostCommentsArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
};


export type PostHighlightsArgs = {
  fields: Array<Scalars['String']['input']>;
};

export type CreatePostInput = {
  title: Scalars['String']['input'];
  content: Scalars['String']['input'];
  authorId: Scalars['ID']['input'];
};

export type UpdatePostInput = {
  title?: InputMaybe<Scalars['String']['input']>;
  content?: InputMaybe<Scalars['String']['input']>;
};

export type Comment = {
  __typename?: 'Comment';
  id: Scalars['ID']['output'];
  text: Scalars['String']['output'];
  author: User;
  post: Post;
  /** ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z. */
  createdAt: Scalars['String']['output'];
  /** The comment's likes, oldest first (limit 1-100). */
  likes: Array<Like>;
};


export type CommentLikesArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
};

/** A comment on a post, written as the caller. */
export type AddCommentInput = {
  postId: Scalars['ID']['input'];
  text: Scalars['String']['input'];
};

/** A user's like of a comment (a user likes a comment once). */
export type Like = {
  __typename?: 'Like';
  commentId: Scalars['ID']['output'];
  userId: Scalars['ID']['output'];
  user: User;
  /** ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z. */
  createdAt: Scalars['String']['output'];
};

export type Query = {
  __typename?: 'Query';
  /** Null when no user has this id. */
  user?: Maybe<User>;
  /** Users by id (limit 1-100), or filtered and ordered as the REST list (docs/QUERYING.md). */
  users: Array<User>;
  /** The same list by key: each page starts right after the one before (`after`: its `pageInfo.endCursor`, with the same filter and orderBy), so any depth costs what the first page costs. */
  usersConnection: UserConnection;
  /** Null when no order has this id, or when it is another customer's. */
  order?: Maybe<Order>;
  /** The caller's orders (all for an admin), newest first (limit 1-100), or filtered and ordered as the REST list (docs/QUERYING.md). */
  orders: Array<Order>;
  /** Measures per group of the orders `filter` matches, the caller's own (all for an admin): REST's GET /orders/aggregate (docs/QUERYING.md). */
  ordersAggregate: OrdersAggregate;
  /** Null when no product has this id. Public. */
  product?: Maybe<Product>;
  /** Products by id (limit 1-100), or filtered and ordered as the REST list (docs/QUERYING.md); ties by id. Public. */
  products: Array<Product>;
  /** Measures per group of the products `filter` and `search` match: REST's GET /products/aggregate (docs/QUERYING.md). Public. */
  productsAggregate: ProductsAggregate;
  /** Null when no post has this id. */
  post?: Maybe<Post>;
  /** Posts, newest first, optionally of one author (limit 1-100), or filtered and ordered as the REST list (docs/QUERYING.md). */
  posts: Array<Post>;
  /** The same list by key: each page starts right after the one before (`after`: its `pageInfo.endCursor`, with the same filter and orderBy), so any depth costs what the first page costs. */
  postsConnection: PostConnection;
  /** Null when no comment has this id. */
  comment?: Maybe<Comment>;
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


export type QueryOrderArgs = {
  id: Scalars['ID']['input'];
};


export type QueryOrdersArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
  filter?: InputMaybe<OrderFilter>;
  orderBy?: InputMaybe<Array<OrderOrder>>;
};


export type QueryOrdersAggregateArgs = {
  filter?: InputMaybe<OrderFilter>;
  measures?: InputMaybe<Array<Scalars['String']['input']>>;
  groupBy?: InputMaybe<Array<Scalars['String']['input']>>;
  sort?: InputMaybe<Array<Scalars['String']['input']>>;
  limit?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryProductArgs = {
  id: Scalars['ID']['input'];
};


export type QueryProductsArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  offset?: InputMaybe<Scalars['Int']['input']>;
  filter?: InputMaybe<ProductFilter>;
  orderBy?: InputMaybe<Array<ProductOrder>>;
  search?: InputMaybe<Scalars['String']['input']>;
};


export type QueryProductsAggregateArgs = {
  filter?: InputMaybe<ProductFilter>;
  search?: InputMaybe<Scalars['String']['input']>;
  measures?: InputMaybe<Array<Scalars['String']['input']>>;
  groupBy?: InputMaybe<Array<Scalars['String']['input']>>;
  sort?: InputMaybe<Array<Scalars['String']['input']>>;
  limit?: InputMaybe<Scalars['Int']['input']>;
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
  search?: InputMaybe<Scalars['String']['input']>;
};


export type QueryPostsConnectionArgs = {
  authorId?: InputMaybe<Scalars['ID']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<PostFilter>;
  orderBy?: InputMaybe<Array<PostOrder>>;
  search?: InputMaybe<Scalars['String']['input']>;
};


export type QueryCommentArgs = {
  id: Scalars['ID']['input'];
};

export type Mutation = {
  __typename?: 'Mutation';
  /** Sign-up: needs no token. */
  createUser: User;
  /** The user themselves or an admin. */
  updateUser: User;
  /** False when no such user exists. */
  deleteUser: Scalars['Boolean']['output'];
  /**
   * A pending order for the caller; OUT_OF_STOCK (details per item) when stock is short, and nothing changes.
   * `idempotencyKey`: as REST's Idempotency-Key (the same key and arguments within 24 h answer the first result).
   */
  createOrder: Order;
  /** pending to paid; else INVALID_STATE. */
  payOrder: Order;
  /** pending to cancelled, the stock returned; else INVALID_STATE. */
  cancelOrder: Order;
  /** Admin only: paid to refunded, the stock returned; else INVALID_STATE. */
  refundOrder: Order;
  /** Admin only. */
  createProduct: Product;
  /** Admin only. */
  updateProduct: Product;
  /** Admin only. False when no such product exists; a product in orders cannot be deleted (CONFLICT). */
  deleteProduct: Scalars['Boolean']['output'];
  /** For the caller (or any author, for an admin). */
  createPost: Post;
  /** The post's author or an admin; the fields given change. */
  updatePost: Post;
  /** The post's author or an admin. False when no such post exists. */
  deletePost: Scalars['Boolean']['output'];
  /** Any signed-in user, as themselves. */
  addComment: Comment;
  /** The comment's author, the post's author or an admin. False when no such comment exists. */
  deleteComment: Scalars['Boolean']['output'];
  /** Likes the comment as the caller; liking it again answers the existing like. */
  likeComment: Like;
  /** Removes the caller's like: true when there was one. */
  unlikeComment: Scalars['Boolean']['output'];
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


export type MutationCreateOrderArgs = {
  input: CreateOrderInput;
  idempotencyKey?: InputMaybe<Scalars['String']['input']>;
};


export type MutationPayOrderArgs = {
  id: Scalars['ID']['input'];
  idempotencyKey?: InputMaybe<Scalars['String']['input']>;
};


export type MutationCancelOrderArgs = {
  id: Scalars['ID']['input'];
  idempotencyKey?: InputMaybe<Scalars['String']['input']>;
};


export type MutationRefundOrderArgs = {
  id: Scalars['ID']['input'];
  idempotencyKey?: InputMaybe<Scalars['String']['input']>;
};


export type MutationCreateProductArgs = {
  input: CreateProductInput;
};


export type MutationUpdateProductArgs = {
  id: Scalars['ID']['input'];
  input: UpdateProductInput;
};


export type MutationDeleteProductArgs = {
  id: Scalars['ID']['input'];
};


export type MutationCreatePostArgs = {
  input: CreatePostInput;
};


export type MutationUpdatePostArgs = {
  id: Scalars['ID']['input'];
  input: UpdatePostInput;
};


export type MutationDeletePostArgs = {
  id: Scalars['ID']['input'];
};


export type MutationAddCommentArgs = {
  input: AddCommentInput;
};


export type MutationDeleteCommentArgs = {
  id: Scalars['ID']['input'];
};


export type MutationLikeCommentArgs = {
  commentId: Scalars['ID']['input'];
};


export type MutationUnlikeCommentArgs = {
  commentId: Scalars['ID']['input'];
};

/** Where a connection's page ends (docs/QUERYING.md, "GraphQL"). */
export type PageInfo = {
  __typename?: 'PageInfo';
  /** Whether more nodes follow this page. */
  hasNextPage: Scalars['Boolean']['output'];
  /** Send as `after` (with the same filter and orderBy) for the next page; null on the last page. */
  endCursor?: Maybe<Scalars['String']['output']>;
};

/** A searched field's text, HTML-escaped, each matched term in <mark>…</mark> (safe to insert as HTML). */
export type SearchHighlight = {
  __typename?: 'SearchHighlight';
  field: Scalars['String']['output'];
  text: Scalars['String']['output'];
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
