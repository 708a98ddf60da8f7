// Generated from the REST v2 OpenAPI document by `npm run openapi:types` (scripts/openapi-types.ts). Do not edit.
export interface paths {
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Events in feed order, after a cursor (admin) */
        get: operations["getEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Events as Server-Sent Events, resumable with Last-Event-ID (admin) */
        get: operations["getEventsStream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List webhook endpoints (admin) */
        get: operations["getWebhooks"];
        put?: never;
        /** Register a webhook endpoint (admin); the answer holds its secret, shown only here */
        post: operations["postWebhooks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{webhookId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a webhook endpoint (admin) */
        get: operations["getWebhooksByWebhookId"];
        put?: never;
        post?: never;
        /** Delete a webhook endpoint and its delivery log (admin) */
        delete: operations["deleteWebhooksByWebhookId"];
        options?: never;
        head?: never;
        /** Change a webhook endpoint; `status: enabled` resumes its waiting deliveries (admin) */
        patch: operations["patchWebhooksByWebhookId"];
        trace?: never;
    };
    "/webhooks/{webhookId}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace the signing secret; the old one signs too for WEBHOOK_SECRET_OVERLAP_HOURS (admin) */
        post: operations["postWebhooksByWebhookIdRotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{webhookId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An endpoint's deliveries, newest first (admin) */
        get: operations["getWebhooksByWebhookIdDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{webhookId}/deliveries/{deliveryId}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Try a delivery again at once, with a fresh retry schedule (admin) */
        post: operations["postWebhooksByWebhookIdDeliveriesByDeliveryIdRetry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{webhookId}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Deliver again every kept event since a time that the endpoint subscribes to (admin) */
        post: operations["postWebhooksByWebhookIdReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Exchange email and password for a bearer token */
        post: operations["postAuthToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List users */
        get: operations["getUsers"];
        put?: never;
        /** Create a user (sign-up) */
        post: operations["postUsers"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a user */
        get: operations["getUsersByUserId"];
        /** Replace a user */
        put: operations["putUsersByUserId"];
        post?: never;
        /** Delete a user with their posts, comments and likes */
        delete: operations["deleteUsersByUserId"];
        options?: never;
        head?: never;
        /** Update some fields of a user */
        patch: operations["patchUsersByUserId"];
        trace?: never;
    };
    "/users/{userId}/verify-email": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mark the email as verified (admin) */
        post: operations["postUsersByUserIdVerifyEmail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users/{userId}/actions/promote-to-admin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Give the user the admin role (admin) */
        post: operations["postUsersByUserIdActionsPromoteToAdmin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List orders (the caller's; all for an admin), newest first */
        get: operations["getOrders"];
        put?: never;
        /** Place an order */
        post: operations["postOrders"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orders/{orderId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read an order and the links its status allows */
        get: operations["getOrdersByOrderId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orders/aggregate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Aggregate orders (the caller's; all for an admin): measures per group */
        get: operations["getOrdersAggregate"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orders/{orderId}/pay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Pay a pending order */
        post: operations["postOrdersByOrderIdPay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orders/{orderId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a pending order (its stock is returned) */
        post: operations["postOrdersByOrderIdCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orders/{orderId}/refund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Refund a paid order (admin; its stock is returned) */
        post: operations["postOrdersByOrderIdRefund"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orders/{orderId}/receipt": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Receipt of a paid or refunded order */
        get: operations["getOrdersByOrderIdReceipt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/customers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the users who have orders (admin), with order count and money spent */
        get: operations["getCustomers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/customers/{customerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A user as a customer: order count and money spent */
        get: operations["getCustomersByCustomerId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/reports/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Queue a report (admin); poll the Location */
        post: operations["postReportsGenerate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/reports/{reportId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A report job: its status and, when done, the result (admin) */
        get: operations["getReportsByReportId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/products": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List products (filtered, sorted, paginated) */
        get: operations["getProducts"];
        put?: never;
        /** Create a product (admin) */
        post: operations["postProducts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/products/aggregate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Aggregate products: measures per group */
        get: operations["getProductsAggregate"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/products/{productId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a product (conditional requests supported) */
        get: operations["getProductsByProductId"];
        /** Replace a product (admin) */
        put: operations["putProductsByProductId"];
        post?: never;
        /** Delete a product that no order refers to (admin) */
        delete: operations["deleteProductsByProductId"];
        options?: never;
        head?: never;
        /** Update some fields of a product (admin) */
        patch: operations["patchProductsByProductId"];
        trace?: never;
    };
    "/posts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List posts, newest first unless sorted, cursor-paginated */
        get: operations["getPosts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/posts/{postId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a post */
        get: operations["getPostsByPostId"];
        /** Replace the title and content of a post (its author or an admin) */
        put: operations["putPostsByPostId"];
        post?: never;
        /** Delete a post (its author or an admin) */
        delete: operations["deletePostsByPostId"];
        options?: never;
        head?: never;
        /** Update some fields of a post (its author or an admin) */
        patch: operations["patchPostsByPostId"];
        trace?: never;
    };
    "/users/{userId}/posts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a user's posts, newest first unless sorted */
        get: operations["getUsersByUserIdPosts"];
        put?: never;
        /** Create a post for a user (that user or an admin) */
        post: operations["postUsersByUserIdPosts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users/{userId}/posts/{postId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read one post of a user */
        get: operations["getUsersByUserIdPostsByPostId"];
        /** Replace the title and content of a post (its author or an admin) */
        put: operations["putUsersByUserIdPostsByPostId"];
        post?: never;
        /** Delete a post (its author or an admin) */
        delete: operations["deleteUsersByUserIdPostsByPostId"];
        options?: never;
        head?: never;
        /** Update some fields of a post (its author or an admin) */
        patch: operations["patchUsersByUserIdPostsByPostId"];
        trace?: never;
    };
    "/posts/{postId}/comments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a post's comments, oldest first */
        get: operations["getPostsByPostIdComments"];
        put?: never;
        /** Comment on a post as the caller */
        post: operations["postPostsByPostIdComments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/comments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List every comment, newest first */
        get: operations["getComments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/posts/{postId}/comments/{commentId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read one comment of a post */
        get: operations["getPostsByPostIdCommentsByCommentId"];
        put?: never;
        post?: never;
        /** Delete a comment (its author, the post's author or an admin) */
        delete: operations["deletePostsByPostIdCommentsByCommentId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/comments/{commentId}/likes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the likes of a comment, oldest first */
        get: operations["getCommentsByCommentIdLikes"];
        put?: never;
        /** Like a comment as the caller (201 the first time, 200 when already liked) */
        post: operations["postCommentsByCommentIdLikes"];
        /** Remove the caller's like (204 also when there was none) */
        delete: operations["deleteCommentsByCommentIdLikes"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/comments/{commentId}/likes/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read one user's like of a comment */
        get: operations["getCommentsByCommentIdLikesByUserId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users/{userId}/avatar": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A user's avatar: the uploaded image, or a generated SVG with the initials */
        get: operations["getUsersByUserIdAvatar"];
        /** Upload an avatar (PNG, JPEG or WebP, at most 1 MiB; the user or an admin) */
        put: operations["putUsersByUserIdAvatar"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller and their rights */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "user.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * user.created event
         * @description Sent to each enabled webhook endpoint subscribed to `user.created` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["userCreatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "user.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * user.updated event
         * @description Sent to each enabled webhook endpoint subscribed to `user.updated` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["userUpdatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "user.deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * user.deleted event
         * @description Sent to each enabled webhook endpoint subscribed to `user.deleted` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["userDeletedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "post.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * post.created event
         * @description Sent to each enabled webhook endpoint subscribed to `post.created` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["postCreatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "post.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * post.updated event
         * @description Sent to each enabled webhook endpoint subscribed to `post.updated` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["postUpdatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "post.deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * post.deleted event
         * @description Sent to each enabled webhook endpoint subscribed to `post.deleted` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["postDeletedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "comment.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * comment.created event
         * @description Sent to each enabled webhook endpoint subscribed to `comment.created` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["commentCreatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "comment.deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * comment.deleted event
         * @description Sent to each enabled webhook endpoint subscribed to `comment.deleted` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["commentDeletedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "like.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * like.created event
         * @description Sent to each enabled webhook endpoint subscribed to `like.created` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["likeCreatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "like.deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * like.deleted event
         * @description Sent to each enabled webhook endpoint subscribed to `like.deleted` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["likeDeletedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "product.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * product.created event
         * @description Sent to each enabled webhook endpoint subscribed to `product.created` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["productCreatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "product.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * product.updated event
         * @description Sent to each enabled webhook endpoint subscribed to `product.updated` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["productUpdatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "product.deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * product.deleted event
         * @description Sent to each enabled webhook endpoint subscribed to `product.deleted` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["productDeletedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "order.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * order.created event
         * @description Sent to each enabled webhook endpoint subscribed to `order.created` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["orderCreatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "order.paid": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * order.paid event
         * @description Sent to each enabled webhook endpoint subscribed to `order.paid` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["orderPaidWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "order.cancelled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * order.cancelled event
         * @description Sent to each enabled webhook endpoint subscribed to `order.cancelled` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["orderCancelledWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "order.refunded": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * order.refunded event
         * @description Sent to each enabled webhook endpoint subscribed to `order.refunded` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["orderRefundedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "report.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * report.completed event
         * @description Sent to each enabled webhook endpoint subscribed to `report.completed` (`/api/webhooks`): the event as the feed shows it, signed.
         */
        post: operations["reportCompletedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /**
         * @description The one error shape of every REST response
         * @example {
         *       "error": {
         *         "code": "NOT_FOUND",
         *         "message": "User 42 not found"
         *       }
         *     }
         */
        ErrorEnvelope: {
            error: {
                code: string;
                message: string;
                details?: {
                    field: string;
                    message: string;
                }[];
            };
        };
        Event: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /**
             * @description `<resource>.<past tense>`
             * @enum {unknown}
             */
            type: "user.created" | "user.updated" | "user.deleted" | "post.created" | "post.updated" | "post.deleted" | "comment.created" | "comment.deleted" | "like.created" | "like.deleted" | "product.created" | "product.updated" | "product.deleted" | "order.created" | "order.paid" | "order.cancelled" | "order.refunded" | "report.completed";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            /** @description The resource as an admin's `GET /api/v2/...` shows it right after the change (`_links` included); for `*.deleted`, its id (and a comment's post, a like's comment and user) */
            data: {
                [key: string]: unknown;
            };
        };
        EventFeed: {
            data: components["schemas"]["Event"][];
            /** @description Pass as `after` to read on: the last event's cursor, or with nothing new the cursor given (null when none was) */
            nextCursor: string | null;
        };
        /** @description A hypermedia link; action links carry the method */
        Link: {
            href: string;
            method?: string;
        };
        CreatedWebhookEndpoint: {
            id: number;
            url: string;
            events: string[];
            description: string | null;
            /**
             * @description `disabled`: nothing is sent; pending deliveries wait (set by a `410 Gone` answer too)
             * @enum {unknown}
             */
            status: "enabled" | "disabled";
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            _links: {
                self: components["schemas"]["Link"];
                deliveries: components["schemas"]["Link"];
                rotateSecret: components["schemas"]["Link"];
                replay: components["schemas"]["Link"];
            };
            /**
             * @description The signing secret (`whsec_` + base64): shown only here and in the rotation answer
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret: string;
        };
        WebhookEndpoint: {
            id: number;
            url: string;
            events: string[];
            description: string | null;
            /**
             * @description `disabled`: nothing is sent; pending deliveries wait (set by a `410 Gone` answer too)
             * @enum {unknown}
             */
            status: "enabled" | "disabled";
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            _links: {
                self: components["schemas"]["Link"];
                deliveries: components["schemas"]["Link"];
                rotateSecret: components["schemas"]["Link"];
                replay: components["schemas"]["Link"];
            };
        };
        Pagination: {
            page: number;
            limit: number;
            total: number;
            totalPages: number;
            hasNext: boolean;
            hasPrev: boolean;
        };
        WebhookEndpointList: {
            data: components["schemas"]["WebhookEndpoint"][];
            pagination: components["schemas"]["Pagination"];
        };
        RotatedWebhookSecret: {
            /**
             * @description The signing secret (`whsec_` + base64): shown only here and in the rotation answer
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret: string;
            /**
             * Format: date-time
             * @description Until then the old secret signs too (a second signature)
             */
            previousSecretExpiresAt: string | null;
        };
        WebhookDelivery: {
            id: number;
            eventId: string;
            eventType: string;
            /**
             * @description `pending`: waiting for its first or next attempt
             * @enum {unknown}
             */
            status: "pending" | "succeeded" | "dead";
            attempts: number;
            /** Format: date-time */
            lastAttemptAt: string | null;
            /** @description null when no HTTP answer came (timeout, refused) */
            lastResponseStatus: number | null;
            /** Format: date-time */
            nextAttemptAt: string | null;
            _links: {
                retry: components["schemas"]["Link"];
            };
        };
        WebhookDeliveryList: {
            data: components["schemas"]["WebhookDelivery"][];
            pagination: components["schemas"]["Pagination"];
        };
        WebhookReplayQueued: {
            /** @description Deliveries queued by the replay */
            queued: number;
        };
        Token: {
            access_token: string;
            /** @enum {string} */
            token_type: "Bearer";
            /** @description Seconds until the token expires */
            expires_in: number;
        };
        /** @description `update` and `delete` are present only for the user themself and administrators */
        UserLinks: {
            self: components["schemas"]["Link"];
            posts: components["schemas"]["Link"];
            avatar: components["schemas"]["Link"];
            update?: components["schemas"]["Link"];
            delete?: components["schemas"]["Link"];
        };
        PostLinks: {
            self: components["schemas"]["Link"];
            author: components["schemas"]["Link"];
            comments: components["schemas"]["Link"];
        };
        EmbeddedUser: {
            id: number;
            name: string;
            /** @description Shown to the user and to admins; null for anyone else */
            email: string | null;
            age: number | null;
            /** @enum {unknown} */
            role: "user" | "admin";
            /** @enum {unknown} */
            status: "active" | "inactive" | "suspended";
            emailVerified: boolean;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            _links: components["schemas"]["UserLinks"];
        };
        EmbeddedComment: {
            id: number;
            postId: number;
            authorId: number;
            text: string;
            /** Format: date-time */
            createdAt: string;
            _links: {
                self: components["schemas"]["Link"];
                post: components["schemas"]["Link"];
                author: components["schemas"]["Link"];
                likes: components["schemas"]["Link"];
            };
        };
        UserFields: {
            id?: number;
            name?: string;
            /** @description Shown to the user and to admins; null for anyone else */
            email?: string | null;
            age?: number | null;
            /** @enum {unknown} */
            role?: "user" | "admin";
            /** @enum {unknown} */
            status?: "active" | "inactive" | "suspended";
            emailVerified?: boolean;
            /** Format: date-time */
            createdAt?: string;
            /** Format: date-time */
            updatedAt?: string;
            _links?: components["schemas"]["UserLinks"];
            /** @description The related resources `include` asked for, each as its own read presents it (with `_links`) */
            _embedded?: {
                posts?: {
                    id: number;
                    title: string;
                    content: string;
                    authorId: number;
                    /** Format: date-time */
                    createdAt: string;
                    /** Format: date-time */
                    updatedAt: string;
                    _links: components["schemas"]["PostLinks"];
                    /** @description The related resources the second level of `include` asked for */
                    _embedded?: {
                        author?: components["schemas"]["EmbeddedUser"];
                        comments?: components["schemas"]["EmbeddedComment"][];
                    };
                }[];
            };
        };
        QueriedPagination: {
            page: number;
            limit: number;
            /** @description Absent with count=none */
            total?: number;
            /** @description Absent with count=none */
            totalPages?: number;
            /** @description Present (true) when total is an estimate */
            totalEstimated?: boolean;
            hasNext: boolean;
            hasPrev: boolean;
            /** @description Send as `cursor` (with the same filters and sort) for the next page; null on the last page */
            nextCursor: string | null;
        };
        UserPage: {
            data: components["schemas"]["UserFields"][];
            pagination: components["schemas"]["QueriedPagination"];
        };
        User: {
            id: number;
            name: string;
            /** @description Shown to the user and to admins; null for anyone else */
            email: string | null;
            age: number | null;
            /** @enum {unknown} */
            role: "user" | "admin";
            /** @enum {unknown} */
            status: "active" | "inactive" | "suspended";
            emailVerified: boolean;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            _links: components["schemas"]["UserLinks"];
            /** @description The related resources `include` asked for, each as its own read presents it (with `_links`) */
            _embedded?: {
                posts?: {
                    id: number;
                    title: string;
                    content: string;
                    authorId: number;
                    /** Format: date-time */
                    createdAt: string;
                    /** Format: date-time */
                    updatedAt: string;
                    _links: components["schemas"]["PostLinks"];
                    /** @description The related resources the second level of `include` asked for */
                    _embedded?: {
                        author?: components["schemas"]["EmbeddedUser"];
                        comments?: components["schemas"]["EmbeddedComment"][];
                    };
                }[];
            };
        };
        Product: {
            id: number;
            name: string;
            category: string;
            price: number;
            stock: number;
            image: string | null;
            description: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            _links: {
                self: components["schemas"]["Link"];
            };
        };
        OrderItem: {
            productId: number;
            name: string;
            quantity: number;
            /** @description Exact to the cent: at most two decimals */
            unitPrice: number;
            /** @description The related resources `include` asked for, each as its own read presents it (with `_links`) */
            _embedded?: {
                product?: components["schemas"]["Product"];
            };
        };
        OrderLinks: {
            self: components["schemas"]["Link"];
            pay?: components["schemas"]["Link"];
            cancel?: components["schemas"]["Link"];
            refund?: components["schemas"]["Link"];
            receipt?: components["schemas"]["Link"];
            customer?: components["schemas"]["Link"];
        };
        Customer: {
            id: number;
            name: string;
            email: string;
            orderCount: number;
            /** @description Sum of the paid (not refunded) orders, at most two decimals */
            totalSpent: number;
            currency: string;
            _links: {
                self: components["schemas"]["Link"];
                orders: components["schemas"]["Link"];
            };
        };
        Order: {
            id: number;
            customerId: number;
            /** @enum {unknown} */
            status: "pending" | "paid" | "cancelled" | "refunded";
            items: components["schemas"]["OrderItem"][];
            /** @description Exact to the cent: at most two decimals */
            amount: number;
            currency: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** Format: date-time */
            paidAt: string | null;
            /** Format: date-time */
            cancelledAt: string | null;
            /** Format: date-time */
            refundedAt: string | null;
            _links: components["schemas"]["OrderLinks"];
            /** @description The related resources `include` asked for, each as its own read presents it (with `_links`) */
            _embedded?: {
                customer?: components["schemas"]["Customer"];
            };
        };
        FacetValue: {
            /**
             * AggregateKeyValue
             * @description A group key or facet value
             */
            value: string | number | null;
            count: number;
        };
        OrderPage: {
            data: components["schemas"]["Order"][];
            pagination: components["schemas"]["QueriedPagination"];
            facets?: {
                status?: components["schemas"]["FacetValue"][];
                currency?: components["schemas"]["FacetValue"][];
            };
        };
        /** @description Money in currency units from exact cents; averages rounded half-even to cents */
        OrdersAggregate: {
            data: {
                /** @description The group: one entry per groupBy key (a time bucket as the ISO timestamp of its start, UTC) */
                key: {
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    status?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    currency?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    customerId?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    "createdAt:day"?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    "createdAt:week"?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    "createdAt:month"?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    "createdAt:year"?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    "paidAt:day"?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    "paidAt:week"?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    "paidAt:month"?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    "paidAt:year"?: string | number | null;
                };
                count: number;
                sum?: {
                    amount?: number;
                };
                avg?: {
                    amount?: number | null;
                };
                min?: {
                    amount?: number | null;
                };
                max?: {
                    amount?: number | null;
                };
            }[];
            /** @description How many groups match (data holds the first `limit`) */
            groups: number;
        };
        Receipt: {
            receiptNumber: string;
            orderId: number;
            customerId: number;
            items: components["schemas"]["OrderItem"][];
            /** @description Exact to the cent: at most two decimals */
            amount: number;
            currency: string;
            /** Format: date-time */
            paidAt: string;
            /** Format: date-time */
            refundedAt: string | null;
            _links: {
                self: components["schemas"]["Link"];
                order: components["schemas"]["Link"];
            };
        };
        CustomerPage: {
            data: components["schemas"]["Customer"][];
            /** @description The next page, or null on the last */
            nextCursor: string | null;
        };
        ReportJob: {
            id: number;
            /** @enum {unknown} */
            type: "sales" | "users" | "content";
            params: {
                from: string | null;
                to: string | null;
            };
            /** @enum {unknown} */
            status: "queued" | "running" | "done" | "failed";
            /** @description The report once status is done, else null */
            result: unknown;
            error: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** Format: date-time */
            finishedAt: string | null;
            _links: {
                self: components["schemas"]["Link"];
            };
        };
        ProductSearchHit: {
            /** @description Relevance: higher is better; compare only within one list */
            score: number;
            highlights?: {
                name?: string;
                category?: string;
                description?: string;
            };
        };
        ProductFields: {
            id?: number;
            name?: string;
            category?: string;
            price?: number;
            stock?: number;
            image?: string | null;
            description?: string | null;
            /** Format: date-time */
            createdAt?: string;
            /** Format: date-time */
            updatedAt?: string;
            _links?: {
                self: components["schemas"]["Link"];
            };
            _search?: components["schemas"]["ProductSearchHit"];
        };
        ProductPage: {
            data: components["schemas"]["ProductFields"][];
            pagination: components["schemas"]["QueriedPagination"];
            /** @description With q matching nothing: the query with each word replaced by the closest indexed word (at most two edits), or null */
            suggestion?: string | null;
            /** @description Present (true) when the facets counted more than COUNT_EXACT_LIMIT matching products: counts from a sample of them, scaled to the estimated matches */
            facetsEstimated?: boolean;
            facets?: {
                category?: components["schemas"]["FacetValue"][];
            };
        };
        /** @description Money in currency units from exact cents; averages rounded half-even to cents */
        ProductsAggregate: {
            data: {
                /** @description The group: one entry per groupBy key (a time bucket as the ISO timestamp of its start, UTC) */
                key: {
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    category?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    "created_at:day"?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    "created_at:week"?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    "created_at:month"?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    "created_at:year"?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    "createdAt:day"?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    "createdAt:week"?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    "createdAt:month"?: string | number | null;
                    /**
                     * AggregateKeyValue
                     * @description A group key or facet value
                     */
                    "createdAt:year"?: string | number | null;
                };
                count: number;
                sum?: {
                    price?: number;
                    stock?: number;
                };
                avg?: {
                    price?: number | null;
                    stock?: number | null;
                };
                min?: {
                    price?: number | null;
                    stock?: number | null;
                };
                max?: {
                    price?: number | null;
                    stock?: number | null;
                };
            }[];
            /** @description How many groups match (data holds the first `limit`) */
            groups: number;
        };
        EmbeddedPost: {
            id: number;
            title: string;
            content: string;
            authorId: number;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            _links: components["schemas"]["PostLinks"];
        };
        PostSearchHit: {
            /** @description Relevance: higher is better; compare only within one list */
            score: number;
            highlights?: {
                title?: string;
                content?: string;
            };
        };
        PostFeedItem: {
            id: number;
            title: string;
            content: string;
            authorId: number;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            _links: components["schemas"]["PostLinks"];
            /** @description The related resources `include` asked for, each as its own read presents it (with `_links`) */
            _embedded?: {
                author?: {
                    id: number;
                    name: string;
                    /** @description Shown to the user and to admins; null for anyone else */
                    email: string | null;
                    age: number | null;
                    /** @enum {unknown} */
                    role: "user" | "admin";
                    /** @enum {unknown} */
                    status: "active" | "inactive" | "suspended";
                    emailVerified: boolean;
                    /** Format: date-time */
                    createdAt: string;
                    /** Format: date-time */
                    updatedAt: string;
                    _links: components["schemas"]["UserLinks"];
                    /** @description The related resources the second level of `include` asked for */
                    _embedded?: {
                        posts?: components["schemas"]["EmbeddedPost"][];
                    };
                };
                comments?: {
                    id: number;
                    postId: number;
                    authorId: number;
                    text: string;
                    /** Format: date-time */
                    createdAt: string;
                    _links: {
                        self: components["schemas"]["Link"];
                        post: components["schemas"]["Link"];
                        author: components["schemas"]["Link"];
                        likes: components["schemas"]["Link"];
                    };
                    /** @description The related resources the second level of `include` asked for */
                    _embedded?: {
                        author?: components["schemas"]["EmbeddedUser"];
                        post?: components["schemas"]["EmbeddedPost"];
                    };
                }[];
            };
            _search?: components["schemas"]["PostSearchHit"];
        };
        PostFeed: {
            data: components["schemas"]["PostFeedItem"][];
            /** @description With q matching nothing: the query with each word replaced by the closest indexed word (at most two edits), or null */
            suggestion?: string | null;
            /** @description Cursor of the next page, or null at the end */
            nextCursor: string | null;
            pagination?: components["schemas"]["QueriedPagination"];
        };
        Post: {
            id: number;
            title: string;
            content: string;
            authorId: number;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            _links: components["schemas"]["PostLinks"];
            /** @description The related resources `include` asked for, each as its own read presents it (with `_links`) */
            _embedded?: {
                author?: {
                    id: number;
                    name: string;
                    /** @description Shown to the user and to admins; null for anyone else */
                    email: string | null;
                    age: number | null;
                    /** @enum {unknown} */
                    role: "user" | "admin";
                    /** @enum {unknown} */
                    status: "active" | "inactive" | "suspended";
                    emailVerified: boolean;
                    /** Format: date-time */
                    createdAt: string;
                    /** Format: date-time */
                    updatedAt: string;
                    _links: components["schemas"]["UserLinks"];
                    /** @description The related resources the second level of `include` asked for */
                    _embedded?: {
                        posts?: components["schemas"]["EmbeddedPost"][];
                    };
                };
                comments?: {
                    id: number;
                    postId: number;
                    authorId: number;
                    text: string;
                    /** Format: date-time */
                    createdAt: string;
                    _links: {
                        self: components["schemas"]["Link"];
                        post: components["schemas"]["Link"];
                        author: components["schemas"]["Link"];
                        likes: components["schemas"]["Link"];
                    };
                    /** @description The related resources the second level of `include` asked for */
                    _embedded?: {
                        author?: components["schemas"]["EmbeddedUser"];
                        post?: components["schemas"]["EmbeddedPost"];
                    };
                }[];
            };
        };
        PostPage: {
            data: components["schemas"]["Post"][];
            pagination: components["schemas"]["QueriedPagination"];
        };
        Comment: {
            id: number;
            postId: number;
            authorId: number;
            text: string;
            /** Format: date-time */
            createdAt: string;
            _links: {
                self: components["schemas"]["Link"];
                post: components["schemas"]["Link"];
                author: components["schemas"]["Link"];
                likes: components["schemas"]["Link"];
            };
            /** @description The related resources `include` asked for, each as its own read presents it (with `_links`) */
            _embedded?: {
                author?: {
                    id: number;
                    name: string;
                    /** @description Shown to the user and to admins; null for anyone else */
                    email: string | null;
                    age: number | null;
                    /** @enum {unknown} */
                    role: "user" | "admin";
                    /** @enum {unknown} */
                    status: "active" | "inactive" | "suspended";
                    emailVerified: boolean;
                    /** Format: date-time */
                    createdAt: string;
                    /** Format: date-time */
                    updatedAt: string;
                    _links: components["schemas"]["UserLinks"];
                    /** @description The related resources the second level of `include` asked for */
                    _embedded?: {
                        posts?: components["schemas"]["EmbeddedPost"][];
                    };
                };
                post?: {
                    id: number;
                    title: string;
                    content: string;
                    authorId: number;
                    /** Format: date-time */
                    createdAt: string;
                    /** Format: date-time */
                    updatedAt: string;
                    _links: components["schemas"]["PostLinks"];
                    /** @description The related resources the second level of `include` asked for */
                    _embedded?: {
                        author?: components["schemas"]["EmbeddedUser"];
                        comments?: components["schemas"]["EmbeddedComment"][];
                    };
                };
            };
        };
        CommentPage: {
            data: components["schemas"]["Comment"][];
            pagination: components["schemas"]["QueriedPagination"];
        };
        Like: {
            commentId: number;
            userId: number;
            /** Format: date-time */
            createdAt: string;
            _links: {
                self: components["schemas"]["Link"];
                user: components["schemas"]["Link"];
            };
            /** @description The related resources `include` asked for, each as its own read presents it (with `_links`) */
            _embedded?: {
                user?: {
                    id: number;
                    name: string;
                    /** @description Shown to the user and to admins; null for anyone else */
                    email: string | null;
                    age: number | null;
                    /** @enum {unknown} */
                    role: "user" | "admin";
                    /** @enum {unknown} */
                    status: "active" | "inactive" | "suspended";
                    emailVerified: boolean;
                    /** Format: date-time */
                    createdAt: string;
                    /** Format: date-time */
                    updatedAt: string;
                    _links: components["schemas"]["UserLinks"];
                    /** @description The related resources the second level of `include` asked for */
                    _embedded?: {
                        posts?: components["schemas"]["EmbeddedPost"][];
                    };
                };
            };
        };
        LikePage: {
            data: components["schemas"]["Like"][];
            pagination: components["schemas"]["QueriedPagination"];
        };
        AvatarInfo: {
            userId: number;
            contentType: string;
            /** @description Bytes */
            size: number;
            /** Format: date-time */
            updatedAt: string;
            _links: {
                self: components["schemas"]["Link"];
                user: components["schemas"]["Link"];
            };
        };
        /** @description How far each right reaches: every item, the caller's own, or none */
        ResourceRights: {
            read: "all" | "own" | "none";
            create: "all" | "own" | "none";
            update: "all" | "own" | "none";
            delete: "all" | "own" | "none";
        };
        Me: {
            /** @description The caller as `GET /users/{id}` shows them (its links are `_links.user`) */
            user: {
                id: number;
                name: string;
                /** @description Shown to the user and to admins; null for anyone else */
                email: string | null;
                age: number | null;
                /** @enum {unknown} */
                role: "user" | "admin";
                /** @enum {unknown} */
                status: "active" | "inactive" | "suspended";
                emailVerified: boolean;
                /** Format: date-time */
                createdAt: string;
                /** Format: date-time */
                updatedAt: string;
            };
            /** @description Whether the caller's role is admin now (the database's, not the token's) */
            admin: boolean;
            rights: {
                users: components["schemas"]["ResourceRights"];
                posts: components["schemas"]["ResourceRights"];
                comments: components["schemas"]["ResourceRights"];
                products: components["schemas"]["ResourceRights"];
                orders: components["schemas"]["ResourceRights"];
                customers: components["schemas"]["ResourceRights"];
                webhooks: components["schemas"]["ResourceRights"];
                events: components["schemas"]["ResourceRights"];
                imports: components["schemas"]["ResourceRights"];
                trash: components["schemas"]["ResourceRights"];
            };
            _links: {
                self: components["schemas"]["Link"];
                user: components["schemas"]["Link"];
            };
        };
        UserCreatedEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "user.created";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["User"];
        };
        UserUpdatedEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "user.updated";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["User"];
        };
        DeletedUser: {
            id: number;
        };
        UserDeletedEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "user.deleted";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["DeletedUser"];
        };
        PostCreatedEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "post.created";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["Post"];
        };
        PostUpdatedEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "post.updated";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["Post"];
        };
        DeletedPost: {
            id: number;
        };
        PostDeletedEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "post.deleted";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["DeletedPost"];
        };
        CommentCreatedEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "comment.created";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["Comment"];
        };
        DeletedComment: {
            id: number;
            postId: number;
        };
        CommentDeletedEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "comment.deleted";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["DeletedComment"];
        };
        LikeCreatedEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "like.created";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["Like"];
        };
        DeletedLike: {
            commentId: number;
            userId: number;
        };
        LikeDeletedEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "like.deleted";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["DeletedLike"];
        };
        ProductCreatedEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "product.created";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["Product"];
        };
        ProductUpdatedEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "product.updated";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["Product"];
        };
        DeletedProduct: {
            id: number;
        };
        ProductDeletedEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "product.deleted";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["DeletedProduct"];
        };
        OrderCreatedEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "order.created";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["Order"];
        };
        OrderPaidEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "order.paid";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["Order"];
        };
        OrderCancelledEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "order.cancelled";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["Order"];
        };
        OrderRefundedEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "order.refunded";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["Order"];
        };
        ReportCompletedEvent: {
            /**
             * @description Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)
             * @example evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c
             */
            id: string;
            /** @constant */
            type: "report.completed";
            /**
             * Format: date-time
             * @description When the change was made (ISO 8601 UTC, milliseconds)
             */
            timestamp: string;
            data: components["schemas"]["ReportJob"];
        };
    };
    responses: never;
    parameters: {
        /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
        IfNoneMatch: string;
        /** @description The ETag the change is based on (or `*`): anything else is 412 `PRECONDITION_FAILED` and nothing changes */
        IfMatch: string;
    };
    requestBodies: never;
    headers: {
        /**
         * @description The API version that answered
         * @example 2
         */
        ApiVersion: "1" | "2";
        /**
         * @description Strong validator of the representation; send it back in `If-None-Match` (or `If-Match` on a write)
         * @example "3f2a9c"
         */
        ETag: string;
        /**
         * @description `private, no-cache`, or `public, max-age=60` for product reads
         * @example private, no-cache
         */
        CacheControl: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getEvents: {
        parameters: {
            query?: {
                /** @description Start right after this event: a cursor (`nextCursor`, an SSE `id`) or an event id. Absent: from the oldest event kept */
                after?: string;
                /** @description Events per page (per read of the stream), default 100, at most 1000 */
                limit?: number;
                /**
                 * @description Comma-separated event types or prefixes (`order.*`); `*` or absent: every type
                 * @example order.*,user.created
                 */
                types?: string;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                     *           "type": "user.created",
                     *           "timestamp": "2026-11-21T10:00:00.000Z",
                     *           "data": {}
                     *         }
                     *       ],
                     *       "nextCursor": "nextCursor"
                     *     }
                     */
                    "application/json": components["schemas"]["EventFeed"];
                    "application/vnd.content.v2+json": components["schemas"]["EventFeed"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getEventsStream: {
        parameters: {
            query?: {
                /** @description Start right after this event: a cursor (`nextCursor`, an SSE `id`) or an event id. Absent: from the oldest event kept */
                after?: string;
                /** @description Events per page (per read of the stream), default 100, at most 1000 */
                limit?: number;
                /**
                 * @description Comma-separated event types or prefixes (`order.*`); `*` or absent: every type
                 * @example order.*,user.created
                 */
                types?: string;
            };
            header?: {
                /** @description Resume a stream right after this event (a cursor or an event id); wins over `after` */
                "last-event-id"?: string;
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Server-Sent Events: each message has `id` (its cursor), `event` (its type) and `data` (the event JSON); a `: heartbeat` comment at least every 15 s */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getWebhooks: {
        parameters: {
            query?: {
                /** @description Page number, from 1 (lower values are raised to 1; above 2147483647 is 422) */
                page?: number;
                /** @description Page size (clamped between 1 and the maximum) */
                limit?: number;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": 1,
                     *           "url": "url",
                     *           "events": [
                     *             "events"
                     *           ],
                     *           "description": "description",
                     *           "status": "enabled",
                     *           "createdAt": "2026-11-21T10:00:00.000Z",
                     *           "updatedAt": "2026-11-21T10:00:00.000Z",
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/users/1",
                     *               "method": "GET"
                     *             },
                     *             "deliveries": {
                     *               "href": "/api/v2/users/1",
                     *               "method": "GET"
                     *             },
                     *             "rotateSecret": {
                     *               "href": "/api/v2/users/1",
                     *               "method": "GET"
                     *             },
                     *             "replay": {
                     *               "href": "/api/v2/users/1",
                     *               "method": "GET"
                     *             }
                     *           }
                     *         }
                     *       ],
                     *       "pagination": {
                     *         "page": 1,
                     *         "limit": 1,
                     *         "total": 1,
                     *         "totalPages": 1,
                     *         "hasNext": true,
                     *         "hasPrev": true
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookEndpointList"];
                    "application/vnd.content.v2+json": components["schemas"]["WebhookEndpointList"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description A new endpoint, enabled at once */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://shop.example.com/hooks/content",
                 *       "events": [
                 *         "order.*",
                 *         "user.created"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /**
                     * @description An http(s) URL, at most 2048 characters; in production not on a private network
                     * @example https://shop.example.com/hooks/content
                     */
                    url: string;
                    /**
                     * @description The event types and prefixes delivered; default `["*"]`
                     * @example [
                     *       "order.*",
                     *       "user.created"
                     *     ]
                     */
                    events?: string[];
                    description?: string | null;
                };
                "application/vnd.content.v2+json": {
                    /**
                     * @description An http(s) URL, at most 2048 characters; in production not on a private network
                     * @example https://shop.example.com/hooks/content
                     */
                    url: string;
                    /**
                     * @description The event types and prefixes delivered; default `["*"]`
                     * @example [
                     *       "order.*",
                     *       "user.created"
                     *     ]
                     */
                    events?: string[];
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description Created; `Location` names the new resource */
            201: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Where the created resource lives */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 1,
                     *       "url": "url",
                     *       "events": [
                     *         "events"
                     *       ],
                     *       "description": "description",
                     *       "status": "enabled",
                     *       "createdAt": "2026-11-21T10:00:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "deliveries": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "rotateSecret": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "replay": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         }
                     *       },
                     *       "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
                     *     }
                     */
                    "application/json": components["schemas"]["CreatedWebhookEndpoint"];
                    "application/vnd.content.v2+json": components["schemas"]["CreatedWebhookEndpoint"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getWebhooksByWebhookId: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                webhookId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 1,
                     *       "url": "url",
                     *       "events": [
                     *         "events"
                     *       ],
                     *       "description": "description",
                     *       "status": "enabled",
                     *       "createdAt": "2026-11-21T10:00:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "deliveries": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "rotateSecret": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "replay": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookEndpoint"];
                    "application/vnd.content.v2+json": components["schemas"]["WebhookEndpoint"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteWebhooksByWebhookId: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag the change is based on (or `*`): anything else is 412 `PRECONDITION_FAILED` and nothing changes */
                "If-Match"?: components["parameters"]["IfMatch"];
            };
            path: {
                webhookId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no body */
            204: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `If-Match` does not match the current representation */
            412: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PRECONDITION_FAILED",
                     *         "message": "The resource has changed; fetch it again"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    patchWebhooksByWebhookId: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag the change is based on (or `*`): anything else is 412 `PRECONDITION_FAILED` and nothing changes */
                "If-Match"?: components["parameters"]["IfMatch"];
            };
            path: {
                webhookId: number;
            };
            cookie?: never;
        };
        /** @description Partial update: only the fields sent change */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://shop.example.com/hooks/content",
                 *       "events": [
                 *         "order.*",
                 *         "user.created"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /**
                     * @description An http(s) URL, at most 2048 characters; in production not on a private network
                     * @example https://shop.example.com/hooks/content
                     */
                    url?: string;
                    /**
                     * @description The event types and prefixes delivered; default `["*"]`
                     * @example [
                     *       "order.*",
                     *       "user.created"
                     *     ]
                     */
                    events?: string[];
                    description?: string | null;
                    /**
                     * @description `disabled`: nothing is sent; pending deliveries wait (set by a `410 Gone` answer too)
                     * @enum {unknown}
                     */
                    status?: "enabled" | "disabled";
                };
                "application/vnd.content.v2+json": {
                    /**
                     * @description An http(s) URL, at most 2048 characters; in production not on a private network
                     * @example https://shop.example.com/hooks/content
                     */
                    url?: string;
                    /**
                     * @description The event types and prefixes delivered; default `["*"]`
                     * @example [
                     *       "order.*",
                     *       "user.created"
                     *     ]
                     */
                    events?: string[];
                    description?: string | null;
                    /**
                     * @description `disabled`: nothing is sent; pending deliveries wait (set by a `410 Gone` answer too)
                     * @enum {unknown}
                     */
                    status?: "enabled" | "disabled";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 1,
                     *       "url": "url",
                     *       "events": [
                     *         "events"
                     *       ],
                     *       "description": "description",
                     *       "status": "enabled",
                     *       "createdAt": "2026-11-21T10:00:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "deliveries": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "rotateSecret": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "replay": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookEndpoint"];
                    "application/vnd.content.v2+json": components["schemas"]["WebhookEndpoint"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `If-Match` does not match the current representation */
            412: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PRECONDITION_FAILED",
                     *         "message": "The resource has changed; fetch it again"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postWebhooksByWebhookIdRotateSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: number;
            };
            cookie?: never;
        };
        /** @description No body, or an empty object */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never> | null;
                "application/vnd.content.v2+json": Record<string, never> | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                     *       "previousSecretExpiresAt": "2026-11-21T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["RotatedWebhookSecret"];
                    "application/vnd.content.v2+json": components["schemas"]["RotatedWebhookSecret"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getWebhooksByWebhookIdDeliveries: {
        parameters: {
            query?: {
                /** @description Page number, from 1 (lower values are raised to 1; above 2147483647 is 422) */
                page?: number;
                /** @description Page size (clamped between 1 and the maximum) */
                limit?: number;
                /** @description Only deliveries in this state */
                status?: "pending" | "succeeded" | "dead";
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                webhookId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": 1,
                     *           "eventId": "eventId",
                     *           "eventType": "eventType",
                     *           "status": "pending",
                     *           "attempts": 1,
                     *           "lastAttemptAt": "2026-11-21T10:00:00.000Z",
                     *           "lastResponseStatus": 1,
                     *           "nextAttemptAt": "2026-11-21T10:00:00.000Z",
                     *           "_links": {
                     *             "retry": {
                     *               "href": "/api/v2/users/1",
                     *               "method": "GET"
                     *             }
                     *           }
                     *         }
                     *       ],
                     *       "pagination": {
                     *         "page": 1,
                     *         "limit": 1,
                     *         "total": 1,
                     *         "totalPages": 1,
                     *         "hasNext": true,
                     *         "hasPrev": true
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                    "application/vnd.content.v2+json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postWebhooksByWebhookIdDeliveriesByDeliveryIdRetry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: number;
                deliveryId: number;
            };
            cookie?: never;
        };
        /** @description No body, or an empty object */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never> | null;
                "application/vnd.content.v2+json": Record<string, never> | null;
            };
        };
        responses: {
            /** @description Accepted; `Location` names the job to poll */
            202: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Where the created resource lives */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 1,
                     *       "eventId": "eventId",
                     *       "eventType": "eventType",
                     *       "status": "pending",
                     *       "attempts": 1,
                     *       "lastAttemptAt": "2026-11-21T10:00:00.000Z",
                     *       "lastResponseStatus": 1,
                     *       "nextAttemptAt": "2026-11-21T10:00:00.000Z",
                     *       "_links": {
                     *         "retry": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookDelivery"];
                    "application/vnd.content.v2+json": components["schemas"]["WebhookDelivery"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postWebhooksByWebhookIdReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "since": "2026-11-24T16:00:00.000Z"
                 *     }
                 */
                "application/json": {
                    /**
                     * @description An ISO 8601 date-time: every kept event from then on is delivered again; or a cursor of the event feed: every event after it
                     * @example 2026-11-24T16:00:00.000Z
                     */
                    since: string;
                };
                "application/vnd.content.v2+json": {
                    /**
                     * @description An ISO 8601 date-time: every kept event from then on is delivered again; or a cursor of the event feed: every event after it
                     * @example 2026-11-24T16:00:00.000Z
                     */
                    since: string;
                };
            };
        };
        responses: {
            /** @description Accepted; `Location` names the job to poll */
            202: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Where the created resource lives */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "queued": 1
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookReplayQueued"];
                    "application/vnd.content.v2+json": components["schemas"]["WebhookReplayQueued"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postAuthToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "alice@example.com",
                 *       "password": "demo-password"
                 *     }
                 */
                "application/json": {
                    /** @example admin@example.com */
                    email: string;
                    password: string;
                };
                "application/vnd.content.v2+json": {
                    /** @example admin@example.com */
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoidXNlciIsInN1YiI6IjIiLCJpc3MiOiJjb250ZW50LXNlcnZpY2UiLCJhdWQiOiJjb250ZW50LXNlcnZpY2UiLCJpYXQiOjE3OTU1Njc1NTcsImV4cCI6MTc5NTU2ODQ1N30.IQMCfbfw1T5gf5-WV7tboyQkiTxgFMLoxVjIVRdpNzw",
                     *       "token_type": "Bearer",
                     *       "expires_in": 900
                     *     }
                     */
                    "application/json": components["schemas"]["Token"];
                    "application/vnd.content.v2+json": components["schemas"]["Token"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A bearer token was sent and is invalid or expired (this operation needs none), or the credentials are wrong */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Invalid token"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Refused for this caller (e.g. a field only an admin may set, or a suspended account) */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getUsers: {
        parameters: {
            query?: {
                /** @description Page number, from 1 (lower values are raised to 1; above 2147483647 is 422) */
                page?: number;
                /** @description Page size (clamped between 1 and the maximum) */
                limit?: number;
                role?: "user" | "admin";
                status?: "active" | "inactive" | "suspended";
                /** @description Comma-separated fields (id, name, email (admins), age, role, status, emailVerified, createdAt); a leading `-` sorts that field descending; ties break by id */
                sort?: string;
                /** @description The direction of the sort fields without `-` */
                order?: "asc" | "desc";
                /** @description Comma-separated field names; id is always included */
                fields?: string;
                /** @description exact (default): the total; estimated: exact up to COUNT_EXACT_LIMIT (default 10,000), an estimate above; none: no total */
                count?: "exact" | "estimated" | "none";
                /** @description A previous page's `nextCursor`, with the same filters and sort: the page right after it */
                cursor?: string;
                /**
                 * @description Related resources to embed under `_embedded`, a comma list of: posts, posts.author, posts.comments. At most 2 levels; an embedded list holds the first 20. Anything else is 422 naming `include`.
                 * @example posts,posts.author
                 */
                include?: string;
                /** @description id equal to the value */
                id?: number;
                /** @description id equal to the value */
                "id[eq]"?: number;
                /** @description id not equal to the value */
                "id[ne]"?: number;
                /** @description id greater than the value */
                "id[gt]"?: number;
                /** @description id greater than or equal to the value */
                "id[gte]"?: number;
                /** @description id less than the value */
                "id[lt]"?: number;
                /** @description id less than or equal to the value */
                "id[lte]"?: number;
                /** @description id one of (comma list) the value */
                "id[in]"?: string;
                /** @description name equal to the value */
                name?: string;
                /** @description name equal to the value */
                "name[eq]"?: string;
                /** @description name not equal to the value */
                "name[ne]"?: string;
                /** @description name greater than the value */
                "name[gt]"?: string;
                /** @description name greater than or equal to the value */
                "name[gte]"?: string;
                /** @description name less than the value */
                "name[lt]"?: string;
                /** @description name less than or equal to the value */
                "name[lte]"?: string;
                /** @description name one of (comma list) the value */
                "name[in]"?: string;
                /** @description name containing, case-insensitively, the value */
                "name[contains]"?: string;
                /** @description email equal to the value (administrators only) */
                email?: string;
                /** @description email equal to the value (administrators only) */
                "email[eq]"?: string;
                /** @description email not equal to the value (administrators only) */
                "email[ne]"?: string;
                /** @description email greater than the value (administrators only) */
                "email[gt]"?: string;
                /** @description email greater than or equal to the value (administrators only) */
                "email[gte]"?: string;
                /** @description email less than the value (administrators only) */
                "email[lt]"?: string;
                /** @description email less than or equal to the value (administrators only) */
                "email[lte]"?: string;
                /** @description email one of (comma list) the value (administrators only) */
                "email[in]"?: string;
                /** @description email containing, case-insensitively, the value (administrators only) */
                "email[contains]"?: string;
                /** @description age equal to the value */
                age?: number;
                /** @description age equal to the value */
                "age[eq]"?: number;
                /** @description age not equal to the value */
                "age[ne]"?: number;
                /** @description age greater than the value */
                "age[gt]"?: number;
                /** @description age greater than or equal to the value */
                "age[gte]"?: number;
                /** @description age less than the value */
                "age[lt]"?: number;
                /** @description age less than or equal to the value */
                "age[lte]"?: number;
                /** @description age one of (comma list) the value */
                "age[in]"?: string;
                /** @description age null (`true`) or not null (`false`) */
                "age[null]"?: boolean;
                /** @description role equal to the value: one of user, admin */
                "role[eq]"?: string;
                /** @description role not equal to the value: one of user, admin */
                "role[ne]"?: string;
                /** @description role one of (comma list) the value */
                "role[in]"?: string;
                /** @description status equal to the value: one of active, inactive, suspended */
                "status[eq]"?: string;
                /** @description status not equal to the value: one of active, inactive, suspended */
                "status[ne]"?: string;
                /** @description status one of (comma list) the value */
                "status[in]"?: string;
                /** @description emailVerified equal to the value */
                emailVerified?: boolean;
                /** @description emailVerified equal to the value */
                "emailVerified[eq]"?: boolean;
                /** @description emailVerified not equal to the value */
                "emailVerified[ne]"?: boolean;
                /** @description createdAt equal to the value */
                createdAt?: string;
                /** @description createdAt equal to the value */
                "createdAt[eq]"?: string;
                /** @description createdAt not equal to the value */
                "createdAt[ne]"?: string;
                /** @description createdAt greater than the value */
                "createdAt[gt]"?: string;
                /** @description createdAt greater than or equal to the value */
                "createdAt[gte]"?: string;
                /** @description createdAt less than the value */
                "createdAt[lt]"?: string;
                /** @description createdAt less than or equal to the value */
                "createdAt[lte]"?: string;
                /** @description createdAt one of (comma list) the value */
                "createdAt[in]"?: string;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": 1,
                     *           "name": "Administrator",
                     *           "email": null,
                     *           "age": null,
                     *           "role": "admin",
                     *           "status": "active",
                     *           "emailVerified": true,
                     *           "createdAt": "2026-11-25T00:45:53.776Z",
                     *           "updatedAt": "2026-11-25T00:45:53.776Z",
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/users/1"
                     *             },
                     *             "posts": {
                     *               "href": "/api/v2/users/1/posts"
                     *             },
                     *             "avatar": {
                     *               "href": "/api/v2/users/1/avatar"
                     *             },
                     *             "update": {
                     *               "href": "/api/v2/users/1",
                     *               "method": "PATCH"
                     *             },
                     *             "delete": {
                     *               "href": "/api/v2/users/1",
                     *               "method": "DELETE"
                     *             }
                     *           }
                     *         },
                     *         {
                     *           "id": 2,
                     *           "name": "Alice Martin",
                     *           "email": "alice@example.com",
                     *           "age": 34,
                     *           "role": "user",
                     *           "status": "active",
                     *           "emailVerified": true,
                     *           "createdAt": "2026-11-21T13:25:53.892Z",
                     *           "updatedAt": "2026-11-21T13:25:53.892Z",
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/users/2"
                     *             },
                     *             "posts": {
                     *               "href": "/api/v2/users/2/posts"
                     *             },
                     *             "avatar": {
                     *               "href": "/api/v2/users/2/avatar"
                     *             },
                     *             "update": {
                     *               "href": "/api/v2/users/2",
                     *               "method": "PATCH"
                     *             },
                     *             "delete": {
                     *               "href": "/api/v2/users/2",
                     *               "method": "DELETE"
                     *             }
                     *           }
                     *         },
                     *         {
                     *           "id": 3,
                     *           "name": "Bob Chen",
                     *           "email": null,
                     *           "age": 27,
                     *           "role": "user",
                     *           "status": "active",
                     *           "emailVerified": true,
                     *           "createdAt": "2026-11-21T13:26:53.892Z",
                     *           "updatedAt": "2026-11-21T13:26:53.892Z",
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/users/3"
                     *             },
                     *             "posts": {
                     *               "href": "/api/v2/users/3/posts"
                     *             },
                     *             "avatar": {
                     *               "href": "/api/v2/users/3/avatar"
                     *             },
                     *             "update": {
                     *               "href": "/api/v2/users/3",
                     *               "method": "PATCH"
                     *             },
                     *             "delete": {
                     *               "href": "/api/v2/users/3",
                     *               "method": "DELETE"
                     *             }
                     *           }
                     *         },
                     *         {
                     *           "id": 4,
                     *           "name": "Carol Diaz",
                     *           "email": null,
                     *           "age": null,
                     *           "role": "user",
                     *           "status": "active",
                     *           "emailVerified": false,
                     *           "createdAt": "2026-11-21T13:27:53.892Z",
                     *           "updatedAt": "2026-11-21T13:27:53.892Z",
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/users/4"
                     *             },
                     *             "posts": {
                     *               "href": "/api/v2/users/4/posts"
                     *             },
                     *             "avatar": {
                     *               "href": "/api/v2/users/4/avatar"
                     *             },
                     *             "update": {
                     *               "href": "/api/v2/users/4",
                     *               "method": "PATCH"
                     *             },
                     *             "delete": {
                     *               "href": "/api/v2/users/4",
                     *               "method": "DELETE"
                     *             }
                     *           }
                     *         }
                     *       ],
                     *       "pagination": {
                     *         "page": 1,
                     *         "limit": 10,
                     *         "hasNext": false,
                     *         "hasPrev": false,
                     *         "nextCursor": null,
                     *         "total": 4,
                     *         "totalPages": 1
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["UserPage"];
                    "application/vnd.content.v2+json": components["schemas"]["UserPage"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postUsers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Sign-up; only an admin may set role or status */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Grace Hopper",
                 *       "email": "grace@example.com",
                 *       "age": 85,
                 *       "password": "a-long-password"
                 *     }
                 */
                "application/json": {
                    /** @example Ada Lovelace */
                    name: string;
                    /**
                     * Format: email
                     * @example ada@example.com
                     */
                    email: string;
                    age?: number | null;
                    password?: string;
                    /** @enum {unknown} */
                    role?: "user" | "admin";
                    /** @enum {unknown} */
                    status?: "active" | "inactive" | "suspended";
                };
                "application/vnd.content.v2+json": {
                    /** @example Ada Lovelace */
                    name: string;
                    /**
                     * Format: email
                     * @example ada@example.com
                     */
                    email: string;
                    age?: number | null;
                    password?: string;
                    /** @enum {unknown} */
                    role?: "user" | "admin";
                    /** @enum {unknown} */
                    status?: "active" | "inactive" | "suspended";
                };
            };
        };
        responses: {
            /** @description Created; `Location` names the new resource */
            201: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Where the created resource lives */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 5,
                     *       "name": "Grace Hopper",
                     *       "email": "grace@example.com",
                     *       "age": 85,
                     *       "role": "user",
                     *       "status": "active",
                     *       "emailVerified": false,
                     *       "createdAt": "2026-11-25T00:45:57.287Z",
                     *       "updatedAt": "2026-11-25T00:45:57.287Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/users/5"
                     *         },
                     *         "posts": {
                     *           "href": "/api/v2/users/5/posts"
                     *         },
                     *         "avatar": {
                     *           "href": "/api/v2/users/5/avatar"
                     *         },
                     *         "update": {
                     *           "href": "/api/v2/users/5",
                     *           "method": "PATCH"
                     *         },
                     *         "delete": {
                     *           "href": "/api/v2/users/5",
                     *           "method": "DELETE"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["User"];
                    "application/vnd.content.v2+json": components["schemas"]["User"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A bearer token was sent and is invalid or expired (this operation needs none), or the credentials are wrong */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Invalid token"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Refused for this caller (e.g. a field only an admin may set, or a suspended account) */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The email belongs to another user (`CONFLICT`) */
            409: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "CONFLICT",
                     *         "message": "Email already in use"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getUsersByUserId: {
        parameters: {
            query?: {
                /**
                 * @description Related resources to embed under `_embedded`, a comma list of: posts, posts.author, posts.comments. At most 2 levels; an embedded list holds the first 20. Anything else is 422 naming `include`.
                 * @example posts,posts.author
                 */
                include?: string;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                userId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 2,
                     *       "name": "Alice Martin",
                     *       "email": "alice@example.com",
                     *       "age": 34,
                     *       "role": "user",
                     *       "status": "active",
                     *       "emailVerified": true,
                     *       "createdAt": "2026-11-21T13:25:53.892Z",
                     *       "updatedAt": "2026-11-21T13:25:53.892Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/users/2"
                     *         },
                     *         "posts": {
                     *           "href": "/api/v2/users/2/posts"
                     *         },
                     *         "avatar": {
                     *           "href": "/api/v2/users/2/avatar"
                     *         },
                     *         "update": {
                     *           "href": "/api/v2/users/2",
                     *           "method": "PATCH"
                     *         },
                     *         "delete": {
                     *           "href": "/api/v2/users/2",
                     *           "method": "DELETE"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["User"];
                    "application/vnd.content.v2+json": components["schemas"]["User"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    putUsersByUserId: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag the change is based on (or `*`): anything else is 412 `PRECONDITION_FAILED` and nothing changes */
                "If-Match"?: components["parameters"]["IfMatch"];
            };
            path: {
                userId: number;
            };
            cookie?: never;
        };
        /** @description Full replacement: an absent age becomes null */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Grace Brewster Hopper",
                 *       "email": "grace@example.com",
                 *       "age": 85
                 *     }
                 */
                "application/json": {
                    /** @example Ada Lovelace */
                    name: string;
                    /**
                     * Format: email
                     * @example ada@example.com
                     */
                    email: string;
                    age?: number | null;
                    password?: string;
                    /** @enum {unknown} */
                    role?: "user" | "admin";
                    /** @enum {unknown} */
                    status?: "active" | "inactive" | "suspended";
                };
                "application/vnd.content.v2+json": {
                    /** @example Ada Lovelace */
                    name: string;
                    /**
                     * Format: email
                     * @example ada@example.com
                     */
                    email: string;
                    age?: number | null;
                    password?: string;
                    /** @enum {unknown} */
                    role?: "user" | "admin";
                    /** @enum {unknown} */
                    status?: "active" | "inactive" | "suspended";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 5,
                     *       "name": "Grace Brewster Hopper",
                     *       "email": "grace@example.com",
                     *       "age": 85,
                     *       "role": "user",
                     *       "status": "active",
                     *       "emailVerified": false,
                     *       "createdAt": "2026-11-25T00:45:57.287Z",
                     *       "updatedAt": "2026-11-25T00:45:57.410Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/users/5"
                     *         },
                     *         "posts": {
                     *           "href": "/api/v2/users/5/posts"
                     *         },
                     *         "avatar": {
                     *           "href": "/api/v2/users/5/avatar"
                     *         },
                     *         "update": {
                     *           "href": "/api/v2/users/5",
                     *           "method": "PATCH"
                     *         },
                     *         "delete": {
                     *           "href": "/api/v2/users/5",
                     *           "method": "DELETE"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["User"];
                    "application/vnd.content.v2+json": components["schemas"]["User"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The email belongs to another user (`CONFLICT`) */
            409: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "CONFLICT",
                     *         "message": "Email already in use"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `If-Match` does not match the current representation */
            412: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PRECONDITION_FAILED",
                     *         "message": "The resource has changed; fetch it again"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteUsersByUserId: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag the change is based on (or `*`): anything else is 412 `PRECONDITION_FAILED` and nothing changes */
                "If-Match"?: components["parameters"]["IfMatch"];
            };
            path: {
                userId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no body */
            204: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The user has orders, which are kept (`CONFLICT`) */
            409: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "CONFLICT",
                     *         "message": "User 7 has orders and cannot be deleted"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `If-Match` does not match the current representation */
            412: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PRECONDITION_FAILED",
                     *         "message": "The resource has changed; fetch it again"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    patchUsersByUserId: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag the change is based on (or `*`): anything else is 412 `PRECONDITION_FAILED` and nothing changes */
                "If-Match"?: components["parameters"]["IfMatch"];
            };
            path: {
                userId: number;
            };
            cookie?: never;
        };
        /** @description Partial update: only the fields sent change */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "age": 86
                 *     }
                 */
                "application/json": {
                    /** @example Ada Lovelace */
                    name?: string;
                    /**
                     * Format: email
                     * @example ada@example.com
                     */
                    email?: string;
                    age?: number | null;
                    password?: string;
                    /** @enum {unknown} */
                    role?: "user" | "admin";
                    /** @enum {unknown} */
                    status?: "active" | "inactive" | "suspended";
                };
                "application/vnd.content.v2+json": {
                    /** @example Ada Lovelace */
                    name?: string;
                    /**
                     * Format: email
                     * @example ada@example.com
                     */
                    email?: string;
                    age?: number | null;
                    password?: string;
                    /** @enum {unknown} */
                    role?: "user" | "admin";
                    /** @enum {unknown} */
                    status?: "active" | "inactive" | "suspended";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 5,
                     *       "name": "Grace Brewster Hopper",
                     *       "email": "grace@example.com",
                     *       "age": 86,
                     *       "role": "user",
                     *       "status": "active",
                     *       "emailVerified": false,
                     *       "createdAt": "2026-11-25T00:45:57.287Z",
                     *       "updatedAt": "2026-11-25T00:45:57.412Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/users/5"
                     *         },
                     *         "posts": {
                     *           "href": "/api/v2/users/5/posts"
                     *         },
                     *         "avatar": {
                     *           "href": "/api/v2/users/5/avatar"
                     *         },
                     *         "update": {
                     *           "href": "/api/v2/users/5",
                     *           "method": "PATCH"
                     *         },
                     *         "delete": {
                     *           "href": "/api/v2/users/5",
                     *           "method": "DELETE"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["User"];
                    "application/vnd.content.v2+json": components["schemas"]["User"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The email belongs to another user (`CONFLICT`) */
            409: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "CONFLICT",
                     *         "message": "Email already in use"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `If-Match` does not match the current representation */
            412: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PRECONDITION_FAILED",
                     *         "message": "The resource has changed; fetch it again"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postUsersByUserIdVerifyEmail: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                userId: number;
            };
            cookie?: never;
        };
        /** @description No body, or an empty object */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never> | null;
                "application/vnd.content.v2+json": Record<string, never> | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 5,
                     *       "name": "Grace Brewster Hopper",
                     *       "email": "grace@example.com",
                     *       "age": 86,
                     *       "role": "user",
                     *       "status": "active",
                     *       "emailVerified": true,
                     *       "createdAt": "2026-11-25T00:45:57.287Z",
                     *       "updatedAt": "2026-11-25T00:45:57.413Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/users/5"
                     *         },
                     *         "posts": {
                     *           "href": "/api/v2/users/5/posts"
                     *         },
                     *         "avatar": {
                     *           "href": "/api/v2/users/5/avatar"
                     *         },
                     *         "update": {
                     *           "href": "/api/v2/users/5",
                     *           "method": "PATCH"
                     *         },
                     *         "delete": {
                     *           "href": "/api/v2/users/5",
                     *           "method": "DELETE"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["User"];
                    "application/vnd.content.v2+json": components["schemas"]["User"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postUsersByUserIdActionsPromoteToAdmin: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                userId: number;
            };
            cookie?: never;
        };
        /** @description No body, or an empty object */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never> | null;
                "application/vnd.content.v2+json": Record<string, never> | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 5,
                     *       "name": "Grace Brewster Hopper",
                     *       "email": "grace@example.com",
                     *       "age": 86,
                     *       "role": "admin",
                     *       "status": "active",
                     *       "emailVerified": true,
                     *       "createdAt": "2026-11-25T00:45:57.287Z",
                     *       "updatedAt": "2026-11-25T00:45:57.415Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/users/5"
                     *         },
                     *         "posts": {
                     *           "href": "/api/v2/users/5/posts"
                     *         },
                     *         "avatar": {
                     *           "href": "/api/v2/users/5/avatar"
                     *         },
                     *         "update": {
                     *           "href": "/api/v2/users/5",
                     *           "method": "PATCH"
                     *         },
                     *         "delete": {
                     *           "href": "/api/v2/users/5",
                     *           "method": "DELETE"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["User"];
                    "application/vnd.content.v2+json": components["schemas"]["User"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getOrders: {
        parameters: {
            query?: {
                /** @description Page number, from 1 (lower values are raised to 1; above 2147483647 is 422) */
                page?: number;
                /** @description Page size (clamped between 1 and the maximum) */
                limit?: number;
                status?: "pending" | "paid" | "cancelled" | "refunded";
                /** @description Admins: any customer; others: only themselves */
                customerId?: number;
                /**
                 * @description Related resources to embed under `_embedded`, a comma list of: customer, items.product. At most 2 levels; an embedded list holds the first 20. Anything else is 422 naming `include`.
                 * @example customer,items.product
                 */
                include?: string;
                /** @description Comma-separated fields (id, status, currency, amount, createdAt, paidAt, customerId); a leading `-` sorts that field descending; ties break by id, in the direction of the first field; default -createdAt */
                sort?: string;
                /** @description exact (default): the total; estimated: exact up to COUNT_EXACT_LIMIT (default 10,000), an estimate above; none: no total */
                count?: "exact" | "estimated" | "none";
                /** @description A previous page's `nextCursor`, with the same filters and sort: the page right after it */
                cursor?: string;
                /** @description id equal to the value */
                id?: number;
                /** @description id equal to the value */
                "id[eq]"?: number;
                /** @description id not equal to the value */
                "id[ne]"?: number;
                /** @description id greater than the value */
                "id[gt]"?: number;
                /** @description id greater than or equal to the value */
                "id[gte]"?: number;
                /** @description id less than the value */
                "id[lt]"?: number;
                /** @description id less than or equal to the value */
                "id[lte]"?: number;
                /** @description id one of (comma list) the value */
                "id[in]"?: string;
                /** @description status equal to the value: one of pending, paid, cancelled, refunded */
                "status[eq]"?: string;
                /** @description status not equal to the value: one of pending, paid, cancelled, refunded */
                "status[ne]"?: string;
                /** @description status one of (comma list) the value */
                "status[in]"?: string;
                /** @description currency equal to the value */
                currency?: string;
                /** @description currency equal to the value */
                "currency[eq]"?: string;
                /** @description currency not equal to the value */
                "currency[ne]"?: string;
                /** @description currency one of (comma list) the value */
                "currency[in]"?: string;
                /** @description amount (in currency units) equal to the value */
                amount?: number;
                /** @description amount (in currency units) equal to the value */
                "amount[eq]"?: number;
                /** @description amount (in currency units) not equal to the value */
                "amount[ne]"?: number;
                /** @description amount (in currency units) greater than the value */
                "amount[gt]"?: number;
                /** @description amount (in currency units) greater than or equal to the value */
                "amount[gte]"?: number;
                /** @description amount (in currency units) less than the value */
                "amount[lt]"?: number;
                /** @description amount (in currency units) less than or equal to the value */
                "amount[lte]"?: number;
                /** @description amount (in currency units) one of (comma list) the value */
                "amount[in]"?: string;
                /** @description createdAt equal to the value */
                createdAt?: string;
                /** @description createdAt equal to the value */
                "createdAt[eq]"?: string;
                /** @description createdAt not equal to the value */
                "createdAt[ne]"?: string;
                /** @description createdAt greater than the value */
                "createdAt[gt]"?: string;
                /** @description createdAt greater than or equal to the value */
                "createdAt[gte]"?: string;
                /** @description createdAt less than the value */
                "createdAt[lt]"?: string;
                /** @description createdAt less than or equal to the value */
                "createdAt[lte]"?: string;
                /** @description createdAt one of (comma list) the value */
                "createdAt[in]"?: string;
                /** @description paidAt equal to the value */
                paidAt?: string;
                /** @description paidAt equal to the value */
                "paidAt[eq]"?: string;
                /** @description paidAt not equal to the value */
                "paidAt[ne]"?: string;
                /** @description paidAt greater than the value */
                "paidAt[gt]"?: string;
                /** @description paidAt greater than or equal to the value */
                "paidAt[gte]"?: string;
                /** @description paidAt less than the value */
                "paidAt[lt]"?: string;
                /** @description paidAt less than or equal to the value */
                "paidAt[lte]"?: string;
                /** @description paidAt one of (comma list) the value */
                "paidAt[in]"?: string;
                /** @description paidAt null (`true`) or not null (`false`) */
                "paidAt[null]"?: boolean;
                /** @description customerId equal to the value */
                "customerId[eq]"?: number;
                /** @description customerId not equal to the value */
                "customerId[ne]"?: number;
                /** @description customerId one of (comma list) the value */
                "customerId[in]"?: string;
                /** @description Comma list of status, currency: each adds its values' counts over every match of the other filters (its own filter left out), at most 50, most frequent first, ties by value */
                facets?: string;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": 5,
                     *           "customerId": 2,
                     *           "status": "cancelled",
                     *           "items": [
                     *             {
                     *               "productId": 17,
                     *               "name": "Desk lamp",
                     *               "quantity": 1,
                     *               "unitPrice": 34.9
                     *             }
                     *           ],
                     *           "amount": 34.9,
                     *           "currency": "USD",
                     *           "createdAt": "2026-11-25T00:45:57.439Z",
                     *           "updatedAt": "2026-11-25T00:45:57.440Z",
                     *           "paidAt": null,
                     *           "cancelledAt": "2026-11-25T00:45:57.440Z",
                     *           "refundedAt": null,
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/orders/5"
                     *             },
                     *             "customer": {
                     *               "href": "/api/v2/customers/2",
                     *               "method": "GET"
                     *             }
                     *           }
                     *         },
                     *         {
                     *           "id": 4,
                     *           "customerId": 2,
                     *           "status": "refunded",
                     *           "items": [
                     *             {
                     *               "productId": 17,
                     *               "name": "Desk lamp",
                     *               "quantity": 2,
                     *               "unitPrice": 34.9
                     *             }
                     *           ],
                     *           "amount": 69.8,
                     *           "currency": "USD",
                     *           "createdAt": "2026-11-25T00:45:57.430Z",
                     *           "updatedAt": "2026-11-25T00:45:57.437Z",
                     *           "paidAt": "2026-11-25T00:45:57.434Z",
                     *           "cancelledAt": null,
                     *           "refundedAt": "2026-11-25T00:45:57.437Z",
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/orders/4"
                     *             },
                     *             "receipt": {
                     *               "href": "/api/v2/orders/4/receipt",
                     *               "method": "GET"
                     *             },
                     *             "customer": {
                     *               "href": "/api/v2/customers/2",
                     *               "method": "GET"
                     *             }
                     *           }
                     *         }
                     *       ],
                     *       "pagination": {
                     *         "page": 1,
                     *         "limit": 2,
                     *         "hasNext": true,
                     *         "hasPrev": false,
                     *         "nextCursor": "eyJmIjoiWkJyOHVNekg3N1pWLWU2aSIsInYiOlsiMjAyNi0xMS0yNVQwMDo0NTo1Ny40MzBaIiw0XSwibyI6Mn0",
                     *         "total": 4,
                     *         "totalPages": 2
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["OrderPage"];
                    "application/vnd.content.v2+json": components["schemas"]["OrderPage"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postOrders: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first response for the same key and body within 24 hours */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description Each product at most once per order; the amount is computed from current prices */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "items": [
                 *         {
                 *           "productId": 17,
                 *           "quantity": 2
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    items: {
                        productId: number;
                        quantity: number;
                    }[];
                    /** @description Must be the store currency when given */
                    currency?: string;
                    /** @description Admins only: place the order for this user */
                    customerId?: number;
                };
                "application/vnd.content.v2+json": {
                    items: {
                        productId: number;
                        quantity: number;
                    }[];
                    /** @description Must be the store currency when given */
                    currency?: string;
                    /** @description Admins only: place the order for this user */
                    customerId?: number;
                };
            };
        };
        responses: {
            /** @description Created; `Location` names the new resource */
            201: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Where the created resource lives */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 4,
                     *       "customerId": 2,
                     *       "status": "pending",
                     *       "items": [
                     *         {
                     *           "productId": 17,
                     *           "name": "Desk lamp",
                     *           "quantity": 2,
                     *           "unitPrice": 34.9
                     *         }
                     *       ],
                     *       "amount": 69.8,
                     *       "currency": "USD",
                     *       "createdAt": "2026-11-25T00:45:57.430Z",
                     *       "updatedAt": "2026-11-25T00:45:57.430Z",
                     *       "paidAt": null,
                     *       "cancelledAt": null,
                     *       "refundedAt": null,
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/orders/4"
                     *         },
                     *         "pay": {
                     *           "href": "/api/v2/orders/4/pay",
                     *           "method": "POST"
                     *         },
                     *         "cancel": {
                     *           "href": "/api/v2/orders/4/cancel",
                     *           "method": "POST"
                     *         },
                     *         "customer": {
                     *           "href": "/api/v2/customers/2",
                     *           "method": "GET"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Order"];
                    "application/vnd.content.v2+json": components["schemas"]["Order"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not enough stock (`OUT_OF_STOCK`, details per item), or the `Idempotency-Key` is still in use (`CONFLICT`) */
            409: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "OUT_OF_STOCK",
                     *         "message": "Not enough stock"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getOrdersByOrderId: {
        parameters: {
            query?: {
                /**
                 * @description Related resources to embed under `_embedded`, a comma list of: customer, items.product. At most 2 levels; an embedded list holds the first 20. Anything else is 422 naming `include`.
                 * @example customer,items.product
                 */
                include?: string;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                orderId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 4,
                     *       "customerId": 2,
                     *       "status": "pending",
                     *       "items": [
                     *         {
                     *           "productId": 17,
                     *           "name": "Desk lamp",
                     *           "quantity": 2,
                     *           "unitPrice": 34.9
                     *         }
                     *       ],
                     *       "amount": 69.8,
                     *       "currency": "USD",
                     *       "createdAt": "2026-11-25T00:45:57.430Z",
                     *       "updatedAt": "2026-11-25T00:45:57.430Z",
                     *       "paidAt": null,
                     *       "cancelledAt": null,
                     *       "refundedAt": null,
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/orders/4"
                     *         },
                     *         "pay": {
                     *           "href": "/api/v2/orders/4/pay",
                     *           "method": "POST"
                     *         },
                     *         "cancel": {
                     *           "href": "/api/v2/orders/4/cancel",
                     *           "method": "POST"
                     *         },
                     *         "customer": {
                     *           "href": "/api/v2/customers/2",
                     *           "method": "GET"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Order"];
                    "application/vnd.content.v2+json": components["schemas"]["Order"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getOrdersAggregate: {
        parameters: {
            query?: {
                status?: "pending" | "paid" | "cancelled" | "refunded";
                /** @description Admins: any customer; others: only themselves */
                customerId?: number;
                /** @description id equal to the value */
                id?: number;
                /** @description id equal to the value */
                "id[eq]"?: number;
                /** @description id not equal to the value */
                "id[ne]"?: number;
                /** @description id greater than the value */
                "id[gt]"?: number;
                /** @description id greater than or equal to the value */
                "id[gte]"?: number;
                /** @description id less than the value */
                "id[lt]"?: number;
                /** @description id less than or equal to the value */
                "id[lte]"?: number;
                /** @description id one of (comma list) the value */
                "id[in]"?: string;
                /** @description status equal to the value: one of pending, paid, cancelled, refunded */
                "status[eq]"?: string;
                /** @description status not equal to the value: one of pending, paid, cancelled, refunded */
                "status[ne]"?: string;
                /** @description status one of (comma list) the value */
                "status[in]"?: string;
                /** @description currency equal to the value */
                currency?: string;
                /** @description currency equal to the value */
                "currency[eq]"?: string;
                /** @description currency not equal to the value */
                "currency[ne]"?: string;
                /** @description currency one of (comma list) the value */
                "currency[in]"?: string;
                /** @description amount (in currency units) equal to the value */
                amount?: number;
                /** @description amount (in currency units) equal to the value */
                "amount[eq]"?: number;
                /** @description amount (in currency units) not equal to the value */
                "amount[ne]"?: number;
                /** @description amount (in currency units) greater than the value */
                "amount[gt]"?: number;
                /** @description amount (in currency units) greater than or equal to the value */
                "amount[gte]"?: number;
                /** @description amount (in currency units) less than the value */
                "amount[lt]"?: number;
                /** @description amount (in currency units) less than or equal to the value */
                "amount[lte]"?: number;
                /** @description amount (in currency units) one of (comma list) the value */
                "amount[in]"?: string;
                /** @description createdAt equal to the value */
                createdAt?: string;
                /** @description createdAt equal to the value */
                "createdAt[eq]"?: string;
                /** @description createdAt not equal to the value */
                "createdAt[ne]"?: string;
                /** @description createdAt greater than the value */
                "createdAt[gt]"?: string;
                /** @description createdAt greater than or equal to the value */
                "createdAt[gte]"?: string;
                /** @description createdAt less than the value */
                "createdAt[lt]"?: string;
                /** @description createdAt less than or equal to the value */
                "createdAt[lte]"?: string;
                /** @description createdAt one of (comma list) the value */
                "createdAt[in]"?: string;
                /** @description paidAt equal to the value */
                paidAt?: string;
                /** @description paidAt equal to the value */
                "paidAt[eq]"?: string;
                /** @description paidAt not equal to the value */
                "paidAt[ne]"?: string;
                /** @description paidAt greater than the value */
                "paidAt[gt]"?: string;
                /** @description paidAt greater than or equal to the value */
                "paidAt[gte]"?: string;
                /** @description paidAt less than the value */
                "paidAt[lt]"?: string;
                /** @description paidAt less than or equal to the value */
                "paidAt[lte]"?: string;
                /** @description paidAt one of (comma list) the value */
                "paidAt[in]"?: string;
                /** @description paidAt null (`true`) or not null (`false`) */
                "paidAt[null]"?: boolean;
                /** @description customerId equal to the value */
                "customerId[eq]"?: number;
                /** @description customerId not equal to the value */
                "customerId[ne]"?: number;
                /** @description customerId one of (comma list) the value */
                "customerId[in]"?: string;
                /**
                 * @description Comma list of count, sum(f), avg(f), min(f), max(f) over amount; count is always given
                 * @example count,sum(amount)
                 */
                measures?: string;
                /** @description Comma list (at most 4) of status, currency, customerId, createdAt:day, createdAt:week, createdAt:month, createdAt:year, paidAt:day, paidAt:week, paidAt:month, paidAt:year; time buckets in UTC, weeks from Monday; customerId: administrators only */
                groupBy?: string;
                /** @description Comma list of group keys of groupBy or measures as written (`-sum(amount)`); a leading `-` is descending; default: the group keys ascending */
                sort?: string;
                /** @description Groups in the answer: default 100, clamped between 1 and 1000 */
                limit?: number;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Money in currency units from exact cents; averages rounded half-even to cents */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "key": {
                     *             "status": "status",
                     *             "currency": "currency",
                     *             "customerId": "customerId",
                     *             "createdAt:day": "createdAtday",
                     *             "createdAt:week": "createdAtweek",
                     *             "createdAt:month": "createdAtmonth",
                     *             "createdAt:year": "createdAtyear",
                     *             "paidAt:day": "paidAtday",
                     *             "paidAt:week": "paidAtweek",
                     *             "paidAt:month": "paidAtmonth",
                     *             "paidAt:year": "paidAtyear"
                     *           },
                     *           "count": 1,
                     *           "sum": {
                     *             "amount": 9.99
                     *           },
                     *           "avg": {
                     *             "amount": 9.99
                     *           },
                     *           "min": {
                     *             "amount": 9.99
                     *           },
                     *           "max": {
                     *             "amount": 9.99
                     *           }
                     *         }
                     *       ],
                     *       "groups": 1
                     *     }
                     */
                    "application/json": components["schemas"]["OrdersAggregate"];
                    "application/vnd.content.v2+json": components["schemas"]["OrdersAggregate"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postOrdersByOrderIdPay: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first response for the same key and body within 24 hours */
                "idempotency-key"?: string;
            };
            path: {
                orderId: number;
            };
            cookie?: never;
        };
        /** @description No body, or an empty object */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never> | null;
                "application/vnd.content.v2+json": Record<string, never> | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 4,
                     *       "customerId": 2,
                     *       "status": "paid",
                     *       "items": [
                     *         {
                     *           "productId": 17,
                     *           "name": "Desk lamp",
                     *           "quantity": 2,
                     *           "unitPrice": 34.9
                     *         }
                     *       ],
                     *       "amount": 69.8,
                     *       "currency": "USD",
                     *       "createdAt": "2026-11-25T00:45:57.430Z",
                     *       "updatedAt": "2026-11-25T00:45:57.434Z",
                     *       "paidAt": "2026-11-25T00:45:57.434Z",
                     *       "cancelledAt": null,
                     *       "refundedAt": null,
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/orders/4"
                     *         },
                     *         "refund": {
                     *           "href": "/api/v2/orders/4/refund",
                     *           "method": "POST"
                     *         },
                     *         "receipt": {
                     *           "href": "/api/v2/orders/4/receipt",
                     *           "method": "GET"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Order"];
                    "application/vnd.content.v2+json": components["schemas"]["Order"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The order is not in a state that allows this (`INVALID_STATE`, naming it), or the `Idempotency-Key` is still in use (`CONFLICT`) */
            409: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INVALID_STATE",
                     *         "message": "Order 7 is paid"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postOrdersByOrderIdCancel: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first response for the same key and body within 24 hours */
                "idempotency-key"?: string;
            };
            path: {
                orderId: number;
            };
            cookie?: never;
        };
        /** @description No body, or an empty object */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never> | null;
                "application/vnd.content.v2+json": Record<string, never> | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 5,
                     *       "customerId": 2,
                     *       "status": "cancelled",
                     *       "items": [
                     *         {
                     *           "productId": 17,
                     *           "name": "Desk lamp",
                     *           "quantity": 1,
                     *           "unitPrice": 34.9
                     *         }
                     *       ],
                     *       "amount": 34.9,
                     *       "currency": "USD",
                     *       "createdAt": "2026-11-25T00:45:57.439Z",
                     *       "updatedAt": "2026-11-25T00:45:57.440Z",
                     *       "paidAt": null,
                     *       "cancelledAt": "2026-11-25T00:45:57.440Z",
                     *       "refundedAt": null,
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/orders/5"
                     *         },
                     *         "customer": {
                     *           "href": "/api/v2/customers/2",
                     *           "method": "GET"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Order"];
                    "application/vnd.content.v2+json": components["schemas"]["Order"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The order is not in a state that allows this (`INVALID_STATE`, naming it), or the `Idempotency-Key` is still in use (`CONFLICT`) */
            409: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INVALID_STATE",
                     *         "message": "Order 7 is paid"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postOrdersByOrderIdRefund: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first response for the same key and body within 24 hours */
                "idempotency-key"?: string;
            };
            path: {
                orderId: number;
            };
            cookie?: never;
        };
        /** @description No body, or an empty object */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never> | null;
                "application/vnd.content.v2+json": Record<string, never> | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 4,
                     *       "customerId": 2,
                     *       "status": "refunded",
                     *       "items": [
                     *         {
                     *           "productId": 17,
                     *           "name": "Desk lamp",
                     *           "quantity": 2,
                     *           "unitPrice": 34.9
                     *         }
                     *       ],
                     *       "amount": 69.8,
                     *       "currency": "USD",
                     *       "createdAt": "2026-11-25T00:45:57.430Z",
                     *       "updatedAt": "2026-11-25T00:45:57.437Z",
                     *       "paidAt": "2026-11-25T00:45:57.434Z",
                     *       "cancelledAt": null,
                     *       "refundedAt": "2026-11-25T00:45:57.437Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/orders/4"
                     *         },
                     *         "receipt": {
                     *           "href": "/api/v2/orders/4/receipt",
                     *           "method": "GET"
                     *         },
                     *         "customer": {
                     *           "href": "/api/v2/customers/2",
                     *           "method": "GET"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Order"];
                    "application/vnd.content.v2+json": components["schemas"]["Order"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The order is not in a state that allows this (`INVALID_STATE`, naming it), or the `Idempotency-Key` is still in use (`CONFLICT`) */
            409: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INVALID_STATE",
                     *         "message": "Order 7 is paid"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getOrdersByOrderIdReceipt: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                orderId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "receiptNumber": "R-20261125-00000004",
                     *       "orderId": 4,
                     *       "customerId": 2,
                     *       "items": [
                     *         {
                     *           "productId": 17,
                     *           "name": "Desk lamp",
                     *           "quantity": 2,
                     *           "unitPrice": 34.9
                     *         }
                     *       ],
                     *       "amount": 69.8,
                     *       "currency": "USD",
                     *       "paidAt": "2026-11-25T00:45:57.434Z",
                     *       "refundedAt": null,
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/orders/4/receipt"
                     *         },
                     *         "order": {
                     *           "href": "/api/v2/orders/4"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Receipt"];
                    "application/vnd.content.v2+json": components["schemas"]["Receipt"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The order is neither paid nor refunded (`INVALID_STATE`) */
            409: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INVALID_STATE",
                     *         "message": "Order 7 is pending"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getCustomers: {
        parameters: {
            query?: {
                /** @description Customers per page, default 20 */
                limit?: number;
                /** @description The previous page's `nextCursor` */
                cursor?: string;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": 1,
                     *           "name": "name",
                     *           "email": "email",
                     *           "orderCount": 1,
                     *           "totalSpent": 9.99,
                     *           "currency": "currency",
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/users/1",
                     *               "method": "GET"
                     *             },
                     *             "orders": {
                     *               "href": "/api/v2/users/1",
                     *               "method": "GET"
                     *             }
                     *           }
                     *         }
                     *       ],
                     *       "nextCursor": "nextCursor"
                     *     }
                     */
                    "application/json": components["schemas"]["CustomerPage"];
                    "application/vnd.content.v2+json": components["schemas"]["CustomerPage"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getCustomersByCustomerId: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                customerId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 2,
                     *       "name": "Alice Martin",
                     *       "email": "alice@example.com",
                     *       "orderCount": 4,
                     *       "totalSpent": 174.99,
                     *       "currency": "USD",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/customers/2"
                     *         },
                     *         "orders": {
                     *           "href": "/api/v2/orders?customerId=2"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Customer"];
                    "application/vnd.content.v2+json": components["schemas"]["Customer"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postReportsGenerate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "sales"
                 *     }
                 */
                "application/json": {
                    /** @enum {unknown} */
                    type: "sales" | "users" | "content";
                    /** @description Inclusive start: a date or a date-time */
                    from?: string;
                    /** @description Exclusive end; a bare date includes that whole day */
                    to?: string;
                };
                "application/vnd.content.v2+json": {
                    /** @enum {unknown} */
                    type: "sales" | "users" | "content";
                    /** @description Inclusive start: a date or a date-time */
                    from?: string;
                    /** @description Exclusive end; a bare date includes that whole day */
                    to?: string;
                };
            };
        };
        responses: {
            /** @description Accepted; `Location` names the job to poll */
            202: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Where the created resource lives */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 1,
                     *       "type": "sales",
                     *       "params": {
                     *         "from": null,
                     *         "to": null
                     *       },
                     *       "status": "queued",
                     *       "result": null,
                     *       "error": null,
                     *       "createdAt": "2026-11-25T00:45:57.483Z",
                     *       "updatedAt": "2026-11-25T00:45:57.483Z",
                     *       "finishedAt": null,
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/reports/1"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ReportJob"];
                    "application/vnd.content.v2+json": components["schemas"]["ReportJob"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getReportsByReportId: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                reportId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 1,
                     *       "type": "sales",
                     *       "params": {
                     *         "from": null,
                     *         "to": null
                     *       },
                     *       "status": "done",
                     *       "result": {
                     *         "type": "sales",
                     *         "from": null,
                     *         "to": null,
                     *         "orders": 5,
                     *         "byStatus": [
                     *           {
                     *             "status": "pending",
                     *             "currency": "USD",
                     *             "orders": 1,
                     *             "amount": 34.5
                     *           },
                     *           {
                     *             "status": "paid",
                     *             "currency": "USD",
                     *             "orders": 1,
                     *             "amount": 174.99
                     *           },
                     *           {
                     *             "status": "cancelled",
                     *             "currency": "USD",
                     *             "orders": 2,
                     *             "amount": 154.89
                     *           },
                     *           {
                     *             "status": "refunded",
                     *             "currency": "USD",
                     *             "orders": 1,
                     *             "amount": 69.8
                     *           }
                     *         ]
                     *       },
                     *       "error": null,
                     *       "createdAt": "2026-11-25T00:45:57.483Z",
                     *       "updatedAt": "2026-11-25T00:45:57.495Z",
                     *       "finishedAt": "2026-11-25T00:45:57.495Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/reports/1"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ReportJob"];
                    "application/vnd.content.v2+json": components["schemas"]["ReportJob"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getProducts: {
        parameters: {
            query?: {
                /** @description Page number, from 1 (lower values are raised to 1; above 2147483647 is 422) */
                page?: number;
                /** @description Page size (clamped between 1 and the maximum) */
                limit?: number;
                /** @description Zero-based count of skipped items; overrides page */
                offset?: number;
                /** @description Equality filter */
                category?: string;
                /** @description Price greater than or equal to the value */
                min_price?: number;
                /** @description Price less than or equal to the value */
                max_price?: number;
                /** @description Only `true` has an effect (stock > 0); any other value is ignored */
                in_stock?: boolean | string;
                /** @description Case-insensitive substring of the name, matched literally */
                search?: string;
                /**
                 * @description Comma-separated: price, -price, name, -name, createdAt, -createdAt; a leading `-` is descending; ties break by ascending id; any other value gives ascending id (with q: best match first, relevance)
                 * @example -price,name
                 */
                sort?: string;
                /** @description Comma-separated field names; id is always included */
                fields?: string;
                /** @description exact (default): the total; estimated: exact up to COUNT_EXACT_LIMIT (default 10,000), an estimate above; none: no total */
                count?: "exact" | "estimated" | "none";
                /** @description A previous page's `nextCursor`, with the same filters and sort: the page right after it */
                cursor?: string;
                /** @description price (in currency units) equal to the value */
                price?: number;
                /** @description price (in currency units) equal to the value */
                "price[eq]"?: number;
                /** @description price (in currency units) not equal to the value */
                "price[ne]"?: number;
                /** @description price (in currency units) greater than the value */
                "price[gt]"?: number;
                /** @description price (in currency units) greater than or equal to the value */
                "price[gte]"?: number;
                /** @description price (in currency units) less than the value */
                "price[lt]"?: number;
                /** @description price (in currency units) less than or equal to the value */
                "price[lte]"?: number;
                /** @description price (in currency units) one of (comma list) the value */
                "price[in]"?: string;
                /** @description stock equal to the value */
                stock?: number;
                /** @description stock equal to the value */
                "stock[eq]"?: number;
                /** @description stock not equal to the value */
                "stock[ne]"?: number;
                /** @description stock greater than the value */
                "stock[gt]"?: number;
                /** @description stock greater than or equal to the value */
                "stock[gte]"?: number;
                /** @description stock less than the value */
                "stock[lt]"?: number;
                /** @description stock less than or equal to the value */
                "stock[lte]"?: number;
                /** @description stock one of (comma list) the value */
                "stock[in]"?: string;
                /** @description name equal to the value */
                name?: string;
                /** @description name equal to the value */
                "name[eq]"?: string;
                /** @description name not equal to the value */
                "name[ne]"?: string;
                /** @description name greater than the value */
                "name[gt]"?: string;
                /** @description name greater than or equal to the value */
                "name[gte]"?: string;
                /** @description name less than the value */
                "name[lt]"?: string;
                /** @description name less than or equal to the value */
                "name[lte]"?: string;
                /** @description name one of (comma list) the value */
                "name[in]"?: string;
                /** @description name containing, case-insensitively, the value */
                "name[contains]"?: string;
                /** @description category equal to the value */
                "category[eq]"?: string;
                /** @description category not equal to the value */
                "category[ne]"?: string;
                /** @description category one of (comma list) the value */
                "category[in]"?: string;
                /** @description createdAt equal to the value */
                createdAt?: string;
                /** @description createdAt equal to the value */
                "createdAt[eq]"?: string;
                /** @description createdAt not equal to the value */
                "createdAt[ne]"?: string;
                /** @description createdAt greater than the value */
                "createdAt[gt]"?: string;
                /** @description createdAt greater than or equal to the value */
                "createdAt[gte]"?: string;
                /** @description createdAt less than the value */
                "createdAt[lt]"?: string;
                /** @description createdAt less than or equal to the value */
                "createdAt[lte]"?: string;
                /** @description createdAt one of (comma list) the value */
                "createdAt[in]"?: string;
                /**
                 * @description Full-text search: words (all must match, English stemming), "a phrase", word* (prefix), -word (exclude), `or` between alternatives. Sorted by relevance unless `sort` names another order
                 * @example coffee or knife -skillet
                 */
                q?: string;
                /** @description With q: comma list of searched fields (name, category, description) whose text comes back in `_search.highlights`, HTML-escaped, matches in <mark> */
                highlight?: string;
                /** @description Comma list of category: each adds its values' counts over every match of the other filters (its own filter left out), at most 50, most frequent first, ties by value */
                facets?: string;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": 6,
                     *           "name": "Designing Data-Intensive Applications",
                     *           "category": "books",
                     *           "price": 48.99,
                     *           "stock": 18,
                     *           "image": "https://images.example.com/products/6.jpg",
                     *           "description": null,
                     *           "createdAt": "2026-11-20T22:01:30.289Z",
                     *           "updatedAt": "2026-11-20T22:01:30.289Z",
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/products/6"
                     *             }
                     *           }
                     *         },
                     *         {
                     *           "id": 7,
                     *           "name": "Refactoring",
                     *           "category": "books",
                     *           "price": 44.99,
                     *           "stock": 0,
                     *           "image": "https://images.example.com/products/7.jpg",
                     *           "description": null,
                     *           "createdAt": "2026-11-20T22:11:30.289Z",
                     *           "updatedAt": "2026-11-20T22:11:30.289Z",
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/products/7"
                     *             }
                     *           }
                     *         }
                     *       ],
                     *       "pagination": {
                     *         "page": 1,
                     *         "limit": 2,
                     *         "hasNext": true,
                     *         "hasPrev": false,
                     *         "nextCursor": "eyJmIjoiek54UUh3Vnhqd21LNTN0VSIsInYiOls0NDk5LDddLCJvIjoyfQ",
                     *         "total": 3,
                     *         "totalPages": 2
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ProductPage"];
                    "application/vnd.content.v2+json": components["schemas"]["ProductPage"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A bearer token was sent and is invalid or expired (this operation needs none), or the credentials are wrong */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Invalid token"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Refused for this caller (e.g. a field only an admin may set, or a suspended account) */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postProducts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description A new product; image and description default to null */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Desk lamp",
                 *       "category": "home",
                 *       "price": 39.9,
                 *       "stock": 12,
                 *       "description": "Warm light, dimmable"
                 *     }
                 */
                "application/json": {
                    /** @example Mechanical Keyboard */
                    name: string;
                    /** @example electronics */
                    category: string;
                    /**
                     * @description At most two decimals
                     * @example 89.99
                     */
                    price: number;
                    stock: number;
                    /**
                     * Format: uri
                     * @description An http(s) URL
                     */
                    image?: string | null;
                    description?: string | null;
                };
                "application/vnd.content.v2+json": {
                    /** @example Mechanical Keyboard */
                    name: string;
                    /** @example electronics */
                    category: string;
                    /**
                     * @description At most two decimals
                     * @example 89.99
                     */
                    price: number;
                    stock: number;
                    /**
                     * Format: uri
                     * @description An http(s) URL
                     */
                    image?: string | null;
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description Created; `Location` names the new resource */
            201: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Where the created resource lives */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 17,
                     *       "name": "Desk lamp",
                     *       "category": "home",
                     *       "price": 39.9,
                     *       "stock": 12,
                     *       "image": null,
                     *       "description": "Warm light, dimmable",
                     *       "updatedAt": "2026-11-25T00:45:57.424Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/products/17"
                     *         }
                     *       },
                     *       "createdAt": "2026-11-25T00:45:57.424Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Product"];
                    "application/vnd.content.v2+json": components["schemas"]["Product"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getProductsAggregate: {
        parameters: {
            query?: {
                /** @description Equality filter */
                category?: string;
                /** @description Price greater than or equal to the value */
                min_price?: number;
                /** @description Price less than or equal to the value */
                max_price?: number;
                /** @description Only `true` has an effect (stock > 0); any other value is ignored */
                in_stock?: boolean | string;
                /** @description Case-insensitive substring of the name, matched literally */
                search?: string;
                /** @description price (in currency units) equal to the value */
                price?: number;
                /** @description price (in currency units) equal to the value */
                "price[eq]"?: number;
                /** @description price (in currency units) not equal to the value */
                "price[ne]"?: number;
                /** @description price (in currency units) greater than the value */
                "price[gt]"?: number;
                /** @description price (in currency units) greater than or equal to the value */
                "price[gte]"?: number;
                /** @description price (in currency units) less than the value */
                "price[lt]"?: number;
                /** @description price (in currency units) less than or equal to the value */
                "price[lte]"?: number;
                /** @description price (in currency units) one of (comma list) the value */
                "price[in]"?: string;
                /** @description stock equal to the value */
                stock?: number;
                /** @description stock equal to the value */
                "stock[eq]"?: number;
                /** @description stock not equal to the value */
                "stock[ne]"?: number;
                /** @description stock greater than the value */
                "stock[gt]"?: number;
                /** @description stock greater than or equal to the value */
                "stock[gte]"?: number;
                /** @description stock less than the value */
                "stock[lt]"?: number;
                /** @description stock less than or equal to the value */
                "stock[lte]"?: number;
                /** @description stock one of (comma list) the value */
                "stock[in]"?: string;
                /** @description name equal to the value */
                name?: string;
                /** @description name equal to the value */
                "name[eq]"?: string;
                /** @description name not equal to the value */
                "name[ne]"?: string;
                /** @description name greater than the value */
                "name[gt]"?: string;
                /** @description name greater than or equal to the value */
                "name[gte]"?: string;
                /** @description name less than the value */
                "name[lt]"?: string;
                /** @description name less than or equal to the value */
                "name[lte]"?: string;
                /** @description name one of (comma list) the value */
                "name[in]"?: string;
                /** @description name containing, case-insensitively, the value */
                "name[contains]"?: string;
                /** @description category equal to the value */
                "category[eq]"?: string;
                /** @description category not equal to the value */
                "category[ne]"?: string;
                /** @description category one of (comma list) the value */
                "category[in]"?: string;
                /** @description createdAt equal to the value */
                createdAt?: string;
                /** @description createdAt equal to the value */
                "createdAt[eq]"?: string;
                /** @description createdAt not equal to the value */
                "createdAt[ne]"?: string;
                /** @description createdAt greater than the value */
                "createdAt[gt]"?: string;
                /** @description createdAt greater than or equal to the value */
                "createdAt[gte]"?: string;
                /** @description createdAt less than the value */
                "createdAt[lt]"?: string;
                /** @description createdAt less than or equal to the value */
                "createdAt[lte]"?: string;
                /** @description createdAt one of (comma list) the value */
                "createdAt[in]"?: string;
                /**
                 * @description Full-text search: words (all must match, English stemming), "a phrase", word* (prefix), -word (exclude), `or` between alternatives. Sorted by relevance unless `sort` names another order
                 * @example coffee or knife -skillet
                 */
                q?: string;
                /**
                 * @description Comma list of count, sum(f), avg(f), min(f), max(f) over price, stock; count is always given
                 * @example count,sum(price)
                 */
                measures?: string;
                /** @description Comma list (at most 4) of category, createdAt:day, createdAt:week, createdAt:month, createdAt:year; time buckets in UTC, weeks from Monday */
                groupBy?: string;
                /** @description Comma list of group keys of groupBy or measures as written (`-sum(amount)`); a leading `-` is descending; default: the group keys ascending */
                sort?: string;
                /** @description Groups in the answer: default 100, clamped between 1 and 1000 */
                limit?: number;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Money in currency units from exact cents; averages rounded half-even to cents */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "key": {
                     *             "category": "category",
                     *             "created_at:day": "createdatday",
                     *             "created_at:week": "createdatweek",
                     *             "created_at:month": "createdatmonth",
                     *             "created_at:year": "createdatyear",
                     *             "createdAt:day": "createdAtday",
                     *             "createdAt:week": "createdAtweek",
                     *             "createdAt:month": "createdAtmonth",
                     *             "createdAt:year": "createdAtyear"
                     *           },
                     *           "count": 1,
                     *           "sum": {
                     *             "price": 9.99,
                     *             "stock": 9.99
                     *           },
                     *           "avg": {
                     *             "price": 9.99,
                     *             "stock": 9.99
                     *           },
                     *           "min": {
                     *             "price": 9.99,
                     *             "stock": 9.99
                     *           },
                     *           "max": {
                     *             "price": 9.99,
                     *             "stock": 9.99
                     *           }
                     *         }
                     *       ],
                     *       "groups": 1
                     *     }
                     */
                    "application/json": components["schemas"]["ProductsAggregate"];
                    "application/vnd.content.v2+json": components["schemas"]["ProductsAggregate"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A bearer token was sent and is invalid or expired (this operation needs none), or the credentials are wrong */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Invalid token"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Refused for this caller (e.g. a field only an admin may set, or a suspended account) */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getProductsByProductId: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                productId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 6,
                     *       "name": "Designing Data-Intensive Applications",
                     *       "category": "books",
                     *       "price": 48.99,
                     *       "stock": 18,
                     *       "image": "https://images.example.com/products/6.jpg",
                     *       "description": null,
                     *       "updatedAt": "2026-11-20T21:35:53.893Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/products/6"
                     *         }
                     *       },
                     *       "createdAt": "2026-11-20T21:35:53.893Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Product"];
                    "application/vnd.content.v2+json": components["schemas"]["Product"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A bearer token was sent and is invalid or expired (this operation needs none), or the credentials are wrong */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Invalid token"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Refused for this caller (e.g. a field only an admin may set, or a suspended account) */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    putProductsByProductId: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag the change is based on (or `*`): anything else is 412 `PRECONDITION_FAILED` and nothing changes */
                "If-Match"?: components["parameters"]["IfMatch"];
            };
            path: {
                productId: number;
            };
            cookie?: never;
        };
        /** @description Full replacement: an absent image or description becomes null */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Desk lamp",
                 *       "category": "home",
                 *       "price": 34.9,
                 *       "stock": 12,
                 *       "description": "Warm light, dimmable"
                 *     }
                 */
                "application/json": {
                    /** @example Mechanical Keyboard */
                    name: string;
                    /** @example electronics */
                    category: string;
                    /**
                     * @description At most two decimals
                     * @example 89.99
                     */
                    price: number;
                    stock: number;
                    /**
                     * Format: uri
                     * @description An http(s) URL
                     */
                    image?: string | null;
                    description?: string | null;
                };
                "application/vnd.content.v2+json": {
                    /** @example Mechanical Keyboard */
                    name: string;
                    /** @example electronics */
                    category: string;
                    /**
                     * @description At most two decimals
                     * @example 89.99
                     */
                    price: number;
                    stock: number;
                    /**
                     * Format: uri
                     * @description An http(s) URL
                     */
                    image?: string | null;
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 17,
                     *       "name": "Desk lamp",
                     *       "category": "home",
                     *       "price": 34.9,
                     *       "stock": 12,
                     *       "image": null,
                     *       "description": "Warm light, dimmable",
                     *       "updatedAt": "2026-11-25T00:45:57.426Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/products/17"
                     *         }
                     *       },
                     *       "createdAt": "2026-11-25T00:45:57.424Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Product"];
                    "application/vnd.content.v2+json": components["schemas"]["Product"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `If-Match` does not match the current representation */
            412: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PRECONDITION_FAILED",
                     *         "message": "The resource has changed; fetch it again"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteProductsByProductId: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag the change is based on (or `*`): anything else is 412 `PRECONDITION_FAILED` and nothing changes */
                "If-Match"?: components["parameters"]["IfMatch"];
            };
            path: {
                productId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no body */
            204: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An order still refers to the product (`CONFLICT`) */
            409: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "CONFLICT",
                     *         "message": "Product 7 is in orders and cannot be deleted"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `If-Match` does not match the current representation */
            412: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PRECONDITION_FAILED",
                     *         "message": "The resource has changed; fetch it again"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    patchProductsByProductId: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag the change is based on (or `*`): anything else is 412 `PRECONDITION_FAILED` and nothing changes */
                "If-Match"?: components["parameters"]["IfMatch"];
            };
            path: {
                productId: number;
            };
            cookie?: never;
        };
        /** @description Partial update: only the fields sent change */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "stock": 10
                 *     }
                 */
                "application/json": {
                    /** @example Mechanical Keyboard */
                    name?: string;
                    /** @example electronics */
                    category?: string;
                    /**
                     * @description At most two decimals
                     * @example 89.99
                     */
                    price?: number;
                    stock?: number;
                    /**
                     * Format: uri
                     * @description An http(s) URL
                     */
                    image?: string | null;
                    description?: string | null;
                };
                "application/vnd.content.v2+json": {
                    /** @example Mechanical Keyboard */
                    name?: string;
                    /** @example electronics */
                    category?: string;
                    /**
                     * @description At most two decimals
                     * @example 89.99
                     */
                    price?: number;
                    stock?: number;
                    /**
                     * Format: uri
                     * @description An http(s) URL
                     */
                    image?: string | null;
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 17,
                     *       "name": "Desk lamp",
                     *       "category": "home",
                     *       "price": 34.9,
                     *       "stock": 10,
                     *       "image": null,
                     *       "description": "Warm light, dimmable",
                     *       "updatedAt": "2026-11-25T00:45:57.428Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/products/17"
                     *         }
                     *       },
                     *       "createdAt": "2026-11-25T00:45:57.424Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Product"];
                    "application/vnd.content.v2+json": components["schemas"]["Product"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `If-Match` does not match the current representation */
            412: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PRECONDITION_FAILED",
                     *         "message": "The resource has changed; fetch it again"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getPosts: {
        parameters: {
            query?: {
                /** @description Page size, default 20, clamped between 1 and 100 */
                limit?: number;
                /** @description Comma-separated fields (id, authorId, title, createdAt); a leading `-` sorts that field descending; ties break by id, in the direction of the first field; default -id */
                sort?: string;
                /** @description Adds `pagination`: with the exact total, an estimated one, exact up to COUNT_EXACT_LIMIT (default 10,000), or none. Without it, no pagination */
                count?: "exact" | "estimated" | "none";
                /** @description Opaque cursor from a previous page's `nextCursor` (with the same filters and sort); absent for the first page */
                cursor?: string;
                /** @description id equal to the value */
                id?: number;
                /** @description id equal to the value */
                "id[eq]"?: number;
                /** @description id not equal to the value */
                "id[ne]"?: number;
                /** @description id greater than the value */
                "id[gt]"?: number;
                /** @description id greater than or equal to the value */
                "id[gte]"?: number;
                /** @description id less than the value */
                "id[lt]"?: number;
                /** @description id less than or equal to the value */
                "id[lte]"?: number;
                /** @description id one of (comma list) the value */
                "id[in]"?: string;
                /** @description authorId equal to the value */
                authorId?: number;
                /** @description authorId equal to the value */
                "authorId[eq]"?: number;
                /** @description authorId not equal to the value */
                "authorId[ne]"?: number;
                /** @description authorId one of (comma list) the value */
                "authorId[in]"?: string;
                /** @description title equal to the value */
                title?: string;
                /** @description title equal to the value */
                "title[eq]"?: string;
                /** @description title not equal to the value */
                "title[ne]"?: string;
                /** @description title greater than the value */
                "title[gt]"?: string;
                /** @description title greater than or equal to the value */
                "title[gte]"?: string;
                /** @description title less than the value */
                "title[lt]"?: string;
                /** @description title less than or equal to the value */
                "title[lte]"?: string;
                /** @description title one of (comma list) the value */
                "title[in]"?: string;
                /** @description title containing, case-insensitively, the value */
                "title[contains]"?: string;
                /** @description createdAt equal to the value */
                createdAt?: string;
                /** @description createdAt equal to the value */
                "createdAt[eq]"?: string;
                /** @description createdAt not equal to the value */
                "createdAt[ne]"?: string;
                /** @description createdAt greater than the value */
                "createdAt[gt]"?: string;
                /** @description createdAt greater than or equal to the value */
                "createdAt[gte]"?: string;
                /** @description createdAt less than the value */
                "createdAt[lt]"?: string;
                /** @description createdAt less than or equal to the value */
                "createdAt[lte]"?: string;
                /** @description createdAt one of (comma list) the value */
                "createdAt[in]"?: string;
                /** @description search (the title or the content) containing, case-insensitively, the value */
                search?: string;
                /** @description search (the title or the content) containing, case-insensitively, the value */
                "search[contains]"?: string;
                /**
                 * @description Related resources to embed under `_embedded`, a comma list of: author, author.posts, comments, comments.author, comments.post. At most 2 levels; an embedded list holds the first 20. Anything else is 422 naming `include`.
                 * @example author,author.posts
                 */
                include?: string;
                /**
                 * @description Full-text search: words (all must match, English stemming), "a phrase", word* (prefix), -word (exclude), `or` between alternatives. Sorted by relevance unless `sort` names another order
                 * @example caching or pagination -graphql
                 */
                q?: string;
                /** @description With q: comma list of searched fields (title, content) whose text comes back in `_search.highlights`, HTML-escaped, matches in <mark> */
                highlight?: string;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": 4,
                     *           "title": "Notes on caching",
                     *           "content": "ETags make conditional requests cheap.",
                     *           "authorId": 4,
                     *           "createdAt": "2026-11-24T08:05:53.893Z",
                     *           "updatedAt": "2026-11-24T08:05:53.893Z",
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/posts/4"
                     *             },
                     *             "author": {
                     *               "href": "/api/v2/users/4"
                     *             },
                     *             "comments": {
                     *               "href": "/api/v2/posts/4/comments"
                     *             }
                     *           }
                     *         },
                     *         {
                     *           "id": 3,
                     *           "title": "GraphQL and REST, one store",
                     *           "content": "Both interfaces read the same tables.",
                     *           "authorId": 3,
                     *           "createdAt": "2026-11-23T15:25:53.893Z",
                     *           "updatedAt": "2026-11-23T15:25:53.893Z",
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/posts/3"
                     *             },
                     *             "author": {
                     *               "href": "/api/v2/users/3"
                     *             },
                     *             "comments": {
                     *               "href": "/api/v2/posts/3/comments"
                     *             }
                     *           }
                     *         }
                     *       ],
                     *       "nextCursor": "eyJmIjoibFBaTjhEdnVZSHVkeWRPQSIsInYiOlszXSwibyI6Mn0"
                     *     }
                     */
                    "application/json": components["schemas"]["PostFeed"];
                    "application/vnd.content.v2+json": components["schemas"]["PostFeed"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getPostsByPostId: {
        parameters: {
            query?: {
                /**
                 * @description Related resources to embed under `_embedded`, a comma list of: author, author.posts, comments, comments.author, comments.post. At most 2 levels; an embedded list holds the first 20. Anything else is 422 naming `include`.
                 * @example author,author.posts
                 */
                include?: string;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                postId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 5,
                     *       "title": "Notes on batching",
                     *       "content": "One query per level, not one per parent.",
                     *       "authorId": 2,
                     *       "createdAt": "2026-11-25T00:45:57.530Z",
                     *       "updatedAt": "2026-11-25T00:45:57.530Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/posts/5"
                     *         },
                     *         "author": {
                     *           "href": "/api/v2/users/2"
                     *         },
                     *         "comments": {
                     *           "href": "/api/v2/posts/5/comments"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Post"];
                    "application/vnd.content.v2+json": components["schemas"]["Post"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    putPostsByPostId: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag the change is based on (or `*`): anything else is 412 `PRECONDITION_FAILED` and nothing changes */
                "If-Match"?: components["parameters"]["IfMatch"];
            };
            path: {
                postId: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "title": "Hello, world",
                 *       "content": "First post."
                 *     }
                 */
                "application/json": {
                    /** @example Hello, world */
                    title: string;
                    /** @example First post. */
                    content: string;
                };
                "application/vnd.content.v2+json": {
                    /** @example Hello, world */
                    title: string;
                    /** @example First post. */
                    content: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 1,
                     *       "title": "title",
                     *       "content": "content",
                     *       "authorId": 1,
                     *       "createdAt": "2026-11-21T10:00:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "author": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "comments": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Post"];
                    "application/vnd.content.v2+json": components["schemas"]["Post"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `If-Match` does not match the current representation */
            412: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PRECONDITION_FAILED",
                     *         "message": "The resource has changed; fetch it again"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deletePostsByPostId: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag the change is based on (or `*`): anything else is 412 `PRECONDITION_FAILED` and nothing changes */
                "If-Match"?: components["parameters"]["IfMatch"];
            };
            path: {
                postId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no body */
            204: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `If-Match` does not match the current representation */
            412: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PRECONDITION_FAILED",
                     *         "message": "The resource has changed; fetch it again"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    patchPostsByPostId: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag the change is based on (or `*`): anything else is 412 `PRECONDITION_FAILED` and nothing changes */
                "If-Match"?: components["parameters"]["IfMatch"];
            };
            path: {
                postId: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "title": "Hello, world",
                 *       "content": "First post."
                 *     }
                 */
                "application/json": {
                    /** @example Hello, world */
                    title?: string;
                    /** @example First post. */
                    content?: string;
                };
                "application/vnd.content.v2+json": {
                    /** @example Hello, world */
                    title?: string;
                    /** @example First post. */
                    content?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 1,
                     *       "title": "title",
                     *       "content": "content",
                     *       "authorId": 1,
                     *       "createdAt": "2026-11-21T10:00:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "author": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "comments": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Post"];
                    "application/vnd.content.v2+json": components["schemas"]["Post"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `If-Match` does not match the current representation */
            412: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PRECONDITION_FAILED",
                     *         "message": "The resource has changed; fetch it again"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getUsersByUserIdPosts: {
        parameters: {
            query?: {
                /** @description Page number, from 1 (lower values are raised to 1; above 2147483647 is 422) */
                page?: number;
                /** @description Page size (clamped between 1 and the maximum) */
                limit?: number;
                /** @description Comma-separated fields (id, authorId, title, createdAt); a leading `-` sorts that field descending; ties break by id, in the direction of the first field; default -id */
                sort?: string;
                /** @description exact (default): the total; estimated: exact up to COUNT_EXACT_LIMIT (default 10,000), an estimate above; none: no total */
                count?: "exact" | "estimated" | "none";
                /** @description A previous page's `nextCursor`, with the same filters and sort: the page right after it */
                cursor?: string;
                /** @description id equal to the value */
                id?: number;
                /** @description id equal to the value */
                "id[eq]"?: number;
                /** @description id not equal to the value */
                "id[ne]"?: number;
                /** @description id greater than the value */
                "id[gt]"?: number;
                /** @description id greater than or equal to the value */
                "id[gte]"?: number;
                /** @description id less than the value */
                "id[lt]"?: number;
                /** @description id less than or equal to the value */
                "id[lte]"?: number;
                /** @description id one of (comma list) the value */
                "id[in]"?: string;
                /** @description authorId equal to the value */
                authorId?: number;
                /** @description authorId equal to the value */
                "authorId[eq]"?: number;
                /** @description authorId not equal to the value */
                "authorId[ne]"?: number;
                /** @description authorId one of (comma list) the value */
                "authorId[in]"?: string;
                /** @description title equal to the value */
                title?: string;
                /** @description title equal to the value */
                "title[eq]"?: string;
                /** @description title not equal to the value */
                "title[ne]"?: string;
                /** @description title greater than the value */
                "title[gt]"?: string;
                /** @description title greater than or equal to the value */
                "title[gte]"?: string;
                /** @description title less than the value */
                "title[lt]"?: string;
                /** @description title less than or equal to the value */
                "title[lte]"?: string;
                /** @description title one of (comma list) the value */
                "title[in]"?: string;
                /** @description title containing, case-insensitively, the value */
                "title[contains]"?: string;
                /** @description createdAt equal to the value */
                createdAt?: string;
                /** @description createdAt equal to the value */
                "createdAt[eq]"?: string;
                /** @description createdAt not equal to the value */
                "createdAt[ne]"?: string;
                /** @description createdAt greater than the value */
                "createdAt[gt]"?: string;
                /** @description createdAt greater than or equal to the value */
                "createdAt[gte]"?: string;
                /** @description createdAt less than the value */
                "createdAt[lt]"?: string;
                /** @description createdAt less than or equal to the value */
                "createdAt[lte]"?: string;
                /** @description createdAt one of (comma list) the value */
                "createdAt[in]"?: string;
                /** @description search (the title or the content) containing, case-insensitively, the value */
                search?: string;
                /** @description search (the title or the content) containing, case-insensitively, the value */
                "search[contains]"?: string;
                /**
                 * @description Related resources to embed under `_embedded`, a comma list of: author, author.posts, comments, comments.author, comments.post. At most 2 levels; an embedded list holds the first 20. Anything else is 422 naming `include`.
                 * @example author,author.posts
                 */
                include?: string;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                userId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": 5,
                     *           "title": "Notes on batching",
                     *           "content": "One query per level, not one per parent.",
                     *           "authorId": 2,
                     *           "createdAt": "2026-11-25T00:45:57.530Z",
                     *           "updatedAt": "2026-11-25T00:45:57.530Z",
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/posts/5"
                     *             },
                     *             "author": {
                     *               "href": "/api/v2/users/2"
                     *             },
                     *             "comments": {
                     *               "href": "/api/v2/posts/5/comments"
                     *             }
                     *           }
                     *         },
                     *         {
                     *           "id": 2,
                     *           "title": "Cursor pagination",
                     *           "content": "Why ids beat offsets for feeds.",
                     *           "authorId": 2,
                     *           "createdAt": "2026-11-22T22:45:53.893Z",
                     *           "updatedAt": "2026-11-22T22:45:53.893Z",
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/posts/2"
                     *             },
                     *             "author": {
                     *               "href": "/api/v2/users/2"
                     *             },
                     *             "comments": {
                     *               "href": "/api/v2/posts/2/comments"
                     *             }
                     *           }
                     *         }
                     *       ],
                     *       "pagination": {
                     *         "page": 1,
                     *         "limit": 2,
                     *         "hasNext": true,
                     *         "hasPrev": false,
                     *         "nextCursor": "eyJmIjoiYmpKN1pFdDZlVjhma2V5NCIsInYiOlsyXSwibyI6Mn0",
                     *         "total": 3,
                     *         "totalPages": 2
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["PostPage"];
                    "application/vnd.content.v2+json": components["schemas"]["PostPage"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postUsersByUserIdPosts: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                userId: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "title": "Notes on batching",
                 *       "content": "One query per level, not one per parent."
                 *     }
                 */
                "application/json": {
                    /** @example Hello, world */
                    title: string;
                    /** @example First post. */
                    content: string;
                };
                "application/vnd.content.v2+json": {
                    /** @example Hello, world */
                    title: string;
                    /** @example First post. */
                    content: string;
                };
            };
        };
        responses: {
            /** @description Created; `Location` names the new resource */
            201: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Where the created resource lives */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 5,
                     *       "title": "Notes on batching",
                     *       "content": "One query per level, not one per parent.",
                     *       "authorId": 2,
                     *       "createdAt": "2026-11-25T00:45:57.530Z",
                     *       "updatedAt": "2026-11-25T00:45:57.530Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/posts/5"
                     *         },
                     *         "author": {
                     *           "href": "/api/v2/users/2"
                     *         },
                     *         "comments": {
                     *           "href": "/api/v2/posts/5/comments"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Post"];
                    "application/vnd.content.v2+json": components["schemas"]["Post"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getUsersByUserIdPostsByPostId: {
        parameters: {
            query?: {
                /**
                 * @description Related resources to embed under `_embedded`, a comma list of: author, author.posts, comments, comments.author, comments.post. At most 2 levels; an embedded list holds the first 20. Anything else is 422 naming `include`.
                 * @example author,author.posts
                 */
                include?: string;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                userId: number;
                postId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 5,
                     *       "title": "Notes on batching",
                     *       "content": "One query per level, not one per parent.",
                     *       "authorId": 2,
                     *       "createdAt": "2026-11-25T00:45:57.530Z",
                     *       "updatedAt": "2026-11-25T00:45:57.530Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/posts/5"
                     *         },
                     *         "author": {
                     *           "href": "/api/v2/users/2"
                     *         },
                     *         "comments": {
                     *           "href": "/api/v2/posts/5/comments"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Post"];
                    "application/vnd.content.v2+json": components["schemas"]["Post"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    putUsersByUserIdPostsByPostId: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag the change is based on (or `*`): anything else is 412 `PRECONDITION_FAILED` and nothing changes */
                "If-Match"?: components["parameters"]["IfMatch"];
            };
            path: {
                userId: number;
                postId: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "title": "Hello, world",
                 *       "content": "First post."
                 *     }
                 */
                "application/json": {
                    /** @example Hello, world */
                    title: string;
                    /** @example First post. */
                    content: string;
                };
                "application/vnd.content.v2+json": {
                    /** @example Hello, world */
                    title: string;
                    /** @example First post. */
                    content: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 1,
                     *       "title": "title",
                     *       "content": "content",
                     *       "authorId": 1,
                     *       "createdAt": "2026-11-21T10:00:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "author": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "comments": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Post"];
                    "application/vnd.content.v2+json": components["schemas"]["Post"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `If-Match` does not match the current representation */
            412: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PRECONDITION_FAILED",
                     *         "message": "The resource has changed; fetch it again"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteUsersByUserIdPostsByPostId: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag the change is based on (or `*`): anything else is 412 `PRECONDITION_FAILED` and nothing changes */
                "If-Match"?: components["parameters"]["IfMatch"];
            };
            path: {
                userId: number;
                postId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no body */
            204: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `If-Match` does not match the current representation */
            412: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PRECONDITION_FAILED",
                     *         "message": "The resource has changed; fetch it again"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    patchUsersByUserIdPostsByPostId: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag the change is based on (or `*`): anything else is 412 `PRECONDITION_FAILED` and nothing changes */
                "If-Match"?: components["parameters"]["IfMatch"];
            };
            path: {
                userId: number;
                postId: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "title": "Hello, world",
                 *       "content": "First post."
                 *     }
                 */
                "application/json": {
                    /** @example Hello, world */
                    title?: string;
                    /** @example First post. */
                    content?: string;
                };
                "application/vnd.content.v2+json": {
                    /** @example Hello, world */
                    title?: string;
                    /** @example First post. */
                    content?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 1,
                     *       "title": "title",
                     *       "content": "content",
                     *       "authorId": 1,
                     *       "createdAt": "2026-11-21T10:00:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "author": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "comments": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Post"];
                    "application/vnd.content.v2+json": components["schemas"]["Post"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `If-Match` does not match the current representation */
            412: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PRECONDITION_FAILED",
                     *         "message": "The resource has changed; fetch it again"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getPostsByPostIdComments: {
        parameters: {
            query?: {
                /** @description Page number, from 1 (lower values are raised to 1; above 2147483647 is 422) */
                page?: number;
                /** @description Page size (clamped between 1 and the maximum) */
                limit?: number;
                /**
                 * @description Related resources to embed under `_embedded`, a comma list of: author, author.posts, post, post.author, post.comments. At most 2 levels; an embedded list holds the first 20. Anything else is 422 naming `include`.
                 * @example author,author.posts
                 */
                include?: string;
                /** @description Comma-separated fields (id, authorId, createdAt); a leading `-` sorts that field descending; ties break by id, ascending */
                sort?: string;
                /** @description exact (default): the total; estimated: exact up to COUNT_EXACT_LIMIT (default 10,000), an estimate above; none: no total */
                count?: "exact" | "estimated" | "none";
                /** @description A previous page's `nextCursor`, with the same filters and sort: the page right after it */
                cursor?: string;
                /** @description id equal to the value */
                id?: number;
                /** @description id equal to the value */
                "id[eq]"?: number;
                /** @description id not equal to the value */
                "id[ne]"?: number;
                /** @description id greater than the value */
                "id[gt]"?: number;
                /** @description id greater than or equal to the value */
                "id[gte]"?: number;
                /** @description id less than the value */
                "id[lt]"?: number;
                /** @description id less than or equal to the value */
                "id[lte]"?: number;
                /** @description id one of (comma list) the value */
                "id[in]"?: string;
                /** @description authorId equal to the value */
                authorId?: number;
                /** @description authorId equal to the value */
                "authorId[eq]"?: number;
                /** @description authorId not equal to the value */
                "authorId[ne]"?: number;
                /** @description authorId one of (comma list) the value */
                "authorId[in]"?: string;
                /** @description createdAt equal to the value */
                createdAt?: string;
                /** @description createdAt equal to the value */
                "createdAt[eq]"?: string;
                /** @description createdAt not equal to the value */
                "createdAt[ne]"?: string;
                /** @description createdAt greater than the value */
                "createdAt[gt]"?: string;
                /** @description createdAt greater than or equal to the value */
                "createdAt[gte]"?: string;
                /** @description createdAt less than the value */
                "createdAt[lt]"?: string;
                /** @description createdAt less than or equal to the value */
                "createdAt[lte]"?: string;
                /** @description createdAt one of (comma list) the value */
                "createdAt[in]"?: string;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                postId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": 5,
                     *           "postId": 5,
                     *           "authorId": 1,
                     *           "text": "Measured it: five statements for the whole tree.",
                     *           "createdAt": "2026-11-25T00:45:57.580Z",
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/posts/5/comments/5"
                     *             },
                     *             "post": {
                     *               "href": "/api/v2/posts/5"
                     *             },
                     *             "author": {
                     *               "href": "/api/v2/users/1"
                     *             },
                     *             "likes": {
                     *               "href": "/api/v2/comments/5/likes"
                     *             }
                     *           }
                     *         }
                     *       ],
                     *       "pagination": {
                     *         "page": 1,
                     *         "limit": 2,
                     *         "hasNext": false,
                     *         "hasPrev": false,
                     *         "nextCursor": null,
                     *         "total": 1,
                     *         "totalPages": 1
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["CommentPage"];
                    "application/vnd.content.v2+json": components["schemas"]["CommentPage"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postPostsByPostIdComments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                postId: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "text": "Measured it: five statements for the whole tree."
                 *     }
                 */
                "application/json": {
                    /** @example Great post! */
                    text: string;
                };
                "application/vnd.content.v2+json": {
                    /** @example Great post! */
                    text: string;
                };
            };
        };
        responses: {
            /** @description Created; `Location` names the new resource */
            201: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Where the created resource lives */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 5,
                     *       "postId": 5,
                     *       "authorId": 1,
                     *       "text": "Measured it: five statements for the whole tree.",
                     *       "createdAt": "2026-11-25T00:45:57.580Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/posts/5/comments/5"
                     *         },
                     *         "post": {
                     *           "href": "/api/v2/posts/5"
                     *         },
                     *         "author": {
                     *           "href": "/api/v2/users/1"
                     *         },
                     *         "likes": {
                     *           "href": "/api/v2/comments/5/likes"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Comment"];
                    "application/vnd.content.v2+json": components["schemas"]["Comment"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getComments: {
        parameters: {
            query?: {
                /** @description Page number, from 1 (lower values are raised to 1; above 2147483647 is 422) */
                page?: number;
                /** @description Page size (clamped between 1 and the maximum) */
                limit?: number;
                /**
                 * @description Related resources to embed under `_embedded`, a comma list of: author, author.posts, post, post.author, post.comments. At most 2 levels; an embedded list holds the first 20. Anything else is 422 naming `include`.
                 * @example author,author.posts
                 */
                include?: string;
                /** @description Comma-separated fields (id, authorId, createdAt, postId); a leading `-` sorts that field descending; ties break by id, in the direction of the first field; default -id */
                sort?: string;
                /** @description exact (default): the total; estimated: exact up to COUNT_EXACT_LIMIT (default 10,000), an estimate above; none: no total */
                count?: "exact" | "estimated" | "none";
                /** @description A previous page's `nextCursor`, with the same filters and sort: the page right after it */
                cursor?: string;
                /** @description id equal to the value */
                id?: number;
                /** @description id equal to the value */
                "id[eq]"?: number;
                /** @description id not equal to the value */
                "id[ne]"?: number;
                /** @description id greater than the value */
                "id[gt]"?: number;
                /** @description id greater than or equal to the value */
                "id[gte]"?: number;
                /** @description id less than the value */
                "id[lt]"?: number;
                /** @description id less than or equal to the value */
                "id[lte]"?: number;
                /** @description id one of (comma list) the value */
                "id[in]"?: string;
                /** @description authorId equal to the value */
                authorId?: number;
                /** @description authorId equal to the value */
                "authorId[eq]"?: number;
                /** @description authorId not equal to the value */
                "authorId[ne]"?: number;
                /** @description authorId one of (comma list) the value */
                "authorId[in]"?: string;
                /** @description createdAt equal to the value */
                createdAt?: string;
                /** @description createdAt equal to the value */
                "createdAt[eq]"?: string;
                /** @description createdAt not equal to the value */
                "createdAt[ne]"?: string;
                /** @description createdAt greater than the value */
                "createdAt[gt]"?: string;
                /** @description createdAt greater than or equal to the value */
                "createdAt[gte]"?: string;
                /** @description createdAt less than the value */
                "createdAt[lt]"?: string;
                /** @description createdAt less than or equal to the value */
                "createdAt[lte]"?: string;
                /** @description createdAt one of (comma list) the value */
                "createdAt[in]"?: string;
                /** @description postId equal to the value */
                postId?: number;
                /** @description postId equal to the value */
                "postId[eq]"?: number;
                /** @description postId not equal to the value */
                "postId[ne]"?: number;
                /** @description postId one of (comma list) the value */
                "postId[in]"?: string;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": 1,
                     *           "postId": 1,
                     *           "authorId": 1,
                     *           "text": "text",
                     *           "createdAt": "2026-11-21T10:00:00.000Z",
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/users/1",
                     *               "method": "GET"
                     *             },
                     *             "post": {
                     *               "href": "/api/v2/users/1",
                     *               "method": "GET"
                     *             },
                     *             "author": {
                     *               "href": "/api/v2/users/1",
                     *               "method": "GET"
                     *             },
                     *             "likes": {
                     *               "href": "/api/v2/users/1",
                     *               "method": "GET"
                     *             }
                     *           }
                     *         }
                     *       ],
                     *       "pagination": {
                     *         "page": 1,
                     *         "limit": 1,
                     *         "total": 1,
                     *         "totalPages": 1,
                     *         "totalEstimated": true,
                     *         "hasNext": true,
                     *         "hasPrev": true,
                     *         "nextCursor": "nextCursor"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["CommentPage"];
                    "application/vnd.content.v2+json": components["schemas"]["CommentPage"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getPostsByPostIdCommentsByCommentId: {
        parameters: {
            query?: {
                /**
                 * @description Related resources to embed under `_embedded`, a comma list of: author, author.posts, post, post.author, post.comments. At most 2 levels; an embedded list holds the first 20. Anything else is 422 naming `include`.
                 * @example author,author.posts
                 */
                include?: string;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                postId: number;
                commentId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 5,
                     *       "postId": 5,
                     *       "authorId": 1,
                     *       "text": "Measured it: five statements for the whole tree.",
                     *       "createdAt": "2026-11-25T00:45:57.580Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/posts/5/comments/5"
                     *         },
                     *         "post": {
                     *           "href": "/api/v2/posts/5"
                     *         },
                     *         "author": {
                     *           "href": "/api/v2/users/1"
                     *         },
                     *         "likes": {
                     *           "href": "/api/v2/comments/5/likes"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Comment"];
                    "application/vnd.content.v2+json": components["schemas"]["Comment"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deletePostsByPostIdCommentsByCommentId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                postId: number;
                commentId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no body */
            204: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getCommentsByCommentIdLikes: {
        parameters: {
            query?: {
                /** @description Page number, from 1 (lower values are raised to 1; above 2147483647 is 422) */
                page?: number;
                /** @description Page size (clamped between 1 and the maximum) */
                limit?: number;
                /**
                 * @description Related resources to embed under `_embedded`, a comma list of: user, user.posts. At most 2 levels; an embedded list holds the first 20. Anything else is 422 naming `include`.
                 * @example user,user.posts
                 */
                include?: string;
                /** @description Comma-separated fields (userId, createdAt); a leading `-` sorts that field descending; ties break by userId, ascending; default createdAt */
                sort?: string;
                /** @description exact (default): the total; estimated: exact up to COUNT_EXACT_LIMIT (default 10,000), an estimate above; none: no total */
                count?: "exact" | "estimated" | "none";
                /** @description A previous page's `nextCursor`, with the same filters and sort: the page right after it */
                cursor?: string;
                /** @description userId equal to the value */
                userId?: number;
                /** @description userId equal to the value */
                "userId[eq]"?: number;
                /** @description userId not equal to the value */
                "userId[ne]"?: number;
                /** @description userId greater than the value */
                "userId[gt]"?: number;
                /** @description userId greater than or equal to the value */
                "userId[gte]"?: number;
                /** @description userId less than the value */
                "userId[lt]"?: number;
                /** @description userId less than or equal to the value */
                "userId[lte]"?: number;
                /** @description userId one of (comma list) the value */
                "userId[in]"?: string;
                /** @description createdAt equal to the value */
                createdAt?: string;
                /** @description createdAt equal to the value */
                "createdAt[eq]"?: string;
                /** @description createdAt not equal to the value */
                "createdAt[ne]"?: string;
                /** @description createdAt greater than the value */
                "createdAt[gt]"?: string;
                /** @description createdAt greater than or equal to the value */
                "createdAt[gte]"?: string;
                /** @description createdAt less than the value */
                "createdAt[lt]"?: string;
                /** @description createdAt less than or equal to the value */
                "createdAt[lte]"?: string;
                /** @description createdAt one of (comma list) the value */
                "createdAt[in]"?: string;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                commentId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "commentId": 5,
                     *           "userId": 2,
                     *           "createdAt": "2026-11-25T00:45:57.606Z",
                     *           "_links": {
                     *             "self": {
                     *               "href": "/api/v2/comments/5/likes/2"
                     *             },
                     *             "user": {
                     *               "href": "/api/v2/users/2"
                     *             }
                     *           }
                     *         }
                     *       ],
                     *       "pagination": {
                     *         "page": 1,
                     *         "limit": 20,
                     *         "hasNext": false,
                     *         "hasPrev": false,
                     *         "nextCursor": null,
                     *         "total": 1,
                     *         "totalPages": 1
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["LikePage"];
                    "application/vnd.content.v2+json": components["schemas"]["LikePage"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    postCommentsByCommentIdLikes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                commentId: number;
            };
            cookie?: never;
        };
        /** @description No body, or an empty object */
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never> | null;
                "application/vnd.content.v2+json": Record<string, never> | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "commentId": 5,
                     *       "userId": 2,
                     *       "createdAt": "2026-11-25T00:45:57.606Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/comments/5/likes/2"
                     *         },
                     *         "user": {
                     *           "href": "/api/v2/users/2"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Like"];
                    "application/vnd.content.v2+json": components["schemas"]["Like"];
                };
            };
            /** @description Created; `Location` names the new resource */
            201: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Where the created resource lives */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "commentId": 5,
                     *       "userId": 2,
                     *       "createdAt": "2026-11-25T00:45:57.606Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/comments/5/likes/2"
                     *         },
                     *         "user": {
                     *           "href": "/api/v2/users/2"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Like"];
                    "application/vnd.content.v2+json": components["schemas"]["Like"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not JSON */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Unsupported Content-Type; send application/json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteCommentsByCommentIdLikes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                commentId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no body */
            204: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getCommentsByCommentIdLikesByUserId: {
        parameters: {
            query?: {
                /**
                 * @description Related resources to embed under `_embedded`, a comma list of: user, user.posts. At most 2 levels; an embedded list holds the first 20. Anything else is 422 naming `include`.
                 * @example user,user.posts
                 */
                include?: string;
            };
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                commentId: number;
                userId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "commentId": 5,
                     *       "userId": 2,
                     *       "createdAt": "2026-11-25T00:45:57.606Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/comments/5/likes/2"
                     *         },
                     *         "user": {
                     *           "href": "/api/v2/users/2"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Like"];
                    "application/vnd.content.v2+json": components["schemas"]["Like"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getUsersByUserIdAvatar: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                userId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The uploaded PNG, JPEG or WebP bytes, or a generated image/svg+xml with the initials */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    "image/svg+xml": string;
                    "image/png": string;
                    "image/jpeg": string;
                    "image/webp": string;
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    putUsersByUserIdAvatar: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                userId: number;
            };
            cookie?: never;
        };
        /** @description The image, as one of image/png, image/jpeg, image/webp */
        requestBody: {
            content: {
                "image/png": string;
                "image/jpeg": string;
                "image/webp": string;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "userId": 1,
                     *       "contentType": "contentType",
                     *       "size": 1,
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "user": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["AvatarInfo"];
                    "application/vnd.content.v2+json": components["schemas"]["AvatarInfo"];
                };
            };
            /** @description Created; `Location` names the new resource */
            201: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Where the created resource lives */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "userId": 2,
                     *       "contentType": "image/png",
                     *       "size": 70,
                     *       "updatedAt": "2026-11-25T00:45:57.417Z",
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/users/2/avatar"
                     *         },
                     *         "user": {
                     *           "href": "/api/v2/users/2"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["AvatarInfo"];
                    "application/vnd.content.v2+json": components["schemas"]["AvatarInfo"];
                };
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such resource (also for ids that are not positive integers) */
            404: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_FOUND",
                     *         "message": "Resource not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Request body over 1 MiB */
            413: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "PAYLOAD_TOO_LARGE",
                     *         "message": "Request body is too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Body is not one of image/png, image/jpeg, image/webp */
            415: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNSUPPORTED_MEDIA_TYPE",
                     *         "message": "Send one of image/png, image/jpeg, image/webp"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETags (list, weak form or `*`) of a representation the client holds: a match is 304 with no body */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "user": {
                     *         "id": 1,
                     *         "name": "name",
                     *         "email": "email",
                     *         "age": 1,
                     *         "role": "user",
                     *         "status": "active",
                     *         "emailVerified": true,
                     *         "createdAt": "2026-11-21T10:00:00.000Z",
                     *         "updatedAt": "2026-11-21T10:00:00.000Z"
                     *       },
                     *       "admin": true,
                     *       "rights": {
                     *         "users": {
                     *           "read": "all",
                     *           "create": "all",
                     *           "update": "all",
                     *           "delete": "all"
                     *         },
                     *         "posts": {
                     *           "read": "all",
                     *           "create": "all",
                     *           "update": "all",
                     *           "delete": "all"
                     *         },
                     *         "comments": {
                     *           "read": "all",
                     *           "create": "all",
                     *           "update": "all",
                     *           "delete": "all"
                     *         },
                     *         "products": {
                     *           "read": "all",
                     *           "create": "all",
                     *           "update": "all",
                     *           "delete": "all"
                     *         },
                     *         "orders": {
                     *           "read": "all",
                     *           "create": "all",
                     *           "update": "all",
                     *           "delete": "all"
                     *         },
                     *         "customers": {
                     *           "read": "all",
                     *           "create": "all",
                     *           "update": "all",
                     *           "delete": "all"
                     *         },
                     *         "webhooks": {
                     *           "read": "all",
                     *           "create": "all",
                     *           "update": "all",
                     *           "delete": "all"
                     *         },
                     *         "events": {
                     *           "read": "all",
                     *           "create": "all",
                     *           "update": "all",
                     *           "delete": "all"
                     *         },
                     *         "imports": {
                     *           "read": "all",
                     *           "create": "all",
                     *           "update": "all",
                     *           "delete": "all"
                     *         },
                     *         "trash": {
                     *           "read": "all",
                     *           "create": "all",
                     *           "update": "all",
                     *           "delete": "all"
                     *         }
                     *       },
                     *       "_links": {
                     *         "self": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         },
                     *         "user": {
                     *           "href": "/api/v2/users/1",
                     *           "method": "GET"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Me"];
                    "application/vnd.content.v2+json": components["schemas"]["Me"];
                };
            };
            /** @description Not modified (`If-None-Match` matched); no body */
            304: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`) */
            400: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "BAD_REQUEST",
                     *         "message": "Request body is not valid JSON"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description The bearer challenge */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "UNAUTHORIZED",
                     *         "message": "Authentication required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Signed in, but not allowed to do this */
            403: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "FORBIDDEN",
                     *         "message": "You are not allowed to do this"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`) */
            406: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "NOT_ACCEPTABLE",
                     *         "message": "Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The URL is too long */
            414: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "URI_TOO_LONG",
                     *         "message": "Request URL is too long"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare) */
            422: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "VALIDATION_ERROR",
                     *         "message": "Request validation failed",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "is required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Rate limit exceeded */
            429: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "RATE_LIMITED",
                     *         "message": "Too many requests"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Unexpected error (no internals are revealed) */
            500: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "INTERNAL",
                     *         "message": "Internal server error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Overloaded or the database is unreachable; retry later */
            503: {
                headers: {
                    "API-Version": components["headers"]["ApiVersion"];
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "SERVICE_UNAVAILABLE",
                     *         "message": "Service is overloaded, retry later"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "application/vnd.content.v2+json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    userCreatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "user.created",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "id": 1,
                 *         "name": "name",
                 *         "email": "email",
                 *         "age": 1,
                 *         "role": "user",
                 *         "status": "active",
                 *         "emailVerified": true,
                 *         "createdAt": "2026-11-21T10:00:00.000Z",
                 *         "updatedAt": "2026-11-21T10:00:00.000Z",
                 *         "_links": {
                 *           "self": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "posts": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "avatar": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "update": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "delete": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["UserCreatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    userUpdatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "user.updated",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "id": 1,
                 *         "name": "name",
                 *         "email": "email",
                 *         "age": 1,
                 *         "role": "user",
                 *         "status": "active",
                 *         "emailVerified": true,
                 *         "createdAt": "2026-11-21T10:00:00.000Z",
                 *         "updatedAt": "2026-11-21T10:00:00.000Z",
                 *         "_links": {
                 *           "self": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "posts": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "avatar": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "update": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "delete": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["UserUpdatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    userDeletedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "user.deleted",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "id": 1
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["UserDeletedEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    postCreatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "post.created",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "id": 1,
                 *         "title": "title",
                 *         "content": "content",
                 *         "authorId": 1,
                 *         "createdAt": "2026-11-21T10:00:00.000Z",
                 *         "updatedAt": "2026-11-21T10:00:00.000Z",
                 *         "_links": {
                 *           "self": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "author": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "comments": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PostCreatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    postUpdatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "post.updated",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "id": 1,
                 *         "title": "title",
                 *         "content": "content",
                 *         "authorId": 1,
                 *         "createdAt": "2026-11-21T10:00:00.000Z",
                 *         "updatedAt": "2026-11-21T10:00:00.000Z",
                 *         "_links": {
                 *           "self": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "author": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "comments": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PostUpdatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    postDeletedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "post.deleted",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "id": 1
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PostDeletedEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    commentCreatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "comment.created",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "id": 1,
                 *         "postId": 1,
                 *         "authorId": 1,
                 *         "text": "text",
                 *         "createdAt": "2026-11-21T10:00:00.000Z",
                 *         "_links": {
                 *           "self": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "post": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "author": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "likes": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["CommentCreatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    commentDeletedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "comment.deleted",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "id": 1,
                 *         "postId": 1
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["CommentDeletedEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    likeCreatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "like.created",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "commentId": 1,
                 *         "userId": 1,
                 *         "createdAt": "2026-11-21T10:00:00.000Z",
                 *         "_links": {
                 *           "self": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "user": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["LikeCreatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    likeDeletedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "like.deleted",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "commentId": 1,
                 *         "userId": 1
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["LikeDeletedEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    productCreatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "product.created",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "id": 1,
                 *         "name": "name",
                 *         "category": "category",
                 *         "price": 9.99,
                 *         "stock": 1,
                 *         "image": "image",
                 *         "description": "description",
                 *         "createdAt": "2026-11-21T10:00:00.000Z",
                 *         "updatedAt": "2026-11-21T10:00:00.000Z",
                 *         "_links": {
                 *           "self": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ProductCreatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    productUpdatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "product.updated",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "id": 1,
                 *         "name": "name",
                 *         "category": "category",
                 *         "price": 9.99,
                 *         "stock": 1,
                 *         "image": "image",
                 *         "description": "description",
                 *         "createdAt": "2026-11-21T10:00:00.000Z",
                 *         "updatedAt": "2026-11-21T10:00:00.000Z",
                 *         "_links": {
                 *           "self": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ProductUpdatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    productDeletedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "product.deleted",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "id": 1
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ProductDeletedEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    orderCreatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "order.created",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "id": 1,
                 *         "customerId": 1,
                 *         "status": "pending",
                 *         "items": [
                 *           {
                 *             "productId": 1,
                 *             "name": "name",
                 *             "quantity": 1,
                 *             "unitPrice": 9.99
                 *           }
                 *         ],
                 *         "amount": 9.99,
                 *         "currency": "currency",
                 *         "createdAt": "2026-11-21T10:00:00.000Z",
                 *         "updatedAt": "2026-11-21T10:00:00.000Z",
                 *         "paidAt": "2026-11-21T10:00:00.000Z",
                 *         "cancelledAt": "2026-11-21T10:00:00.000Z",
                 *         "refundedAt": "2026-11-21T10:00:00.000Z",
                 *         "_links": {
                 *           "self": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "pay": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "cancel": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "refund": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "receipt": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "customer": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["OrderCreatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    orderPaidWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "order.paid",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "id": 1,
                 *         "customerId": 1,
                 *         "status": "pending",
                 *         "items": [
                 *           {
                 *             "productId": 1,
                 *             "name": "name",
                 *             "quantity": 1,
                 *             "unitPrice": 9.99
                 *           }
                 *         ],
                 *         "amount": 9.99,
                 *         "currency": "currency",
                 *         "createdAt": "2026-11-21T10:00:00.000Z",
                 *         "updatedAt": "2026-11-21T10:00:00.000Z",
                 *         "paidAt": "2026-11-21T10:00:00.000Z",
                 *         "cancelledAt": "2026-11-21T10:00:00.000Z",
                 *         "refundedAt": "2026-11-21T10:00:00.000Z",
                 *         "_links": {
                 *           "self": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "pay": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "cancel": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "refund": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "receipt": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "customer": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["OrderPaidEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    orderCancelledWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "order.cancelled",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "id": 1,
                 *         "customerId": 1,
                 *         "status": "pending",
                 *         "items": [
                 *           {
                 *             "productId": 1,
                 *             "name": "name",
                 *             "quantity": 1,
                 *             "unitPrice": 9.99
                 *           }
                 *         ],
                 *         "amount": 9.99,
                 *         "currency": "currency",
                 *         "createdAt": "2026-11-21T10:00:00.000Z",
                 *         "updatedAt": "2026-11-21T10:00:00.000Z",
                 *         "paidAt": "2026-11-21T10:00:00.000Z",
                 *         "cancelledAt": "2026-11-21T10:00:00.000Z",
                 *         "refundedAt": "2026-11-21T10:00:00.000Z",
                 *         "_links": {
                 *           "self": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "pay": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "cancel": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "refund": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "receipt": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "customer": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["OrderCancelledEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    orderRefundedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "order.refunded",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "id": 1,
                 *         "customerId": 1,
                 *         "status": "pending",
                 *         "items": [
                 *           {
                 *             "productId": 1,
                 *             "name": "name",
                 *             "quantity": 1,
                 *             "unitPrice": 9.99
                 *           }
                 *         ],
                 *         "amount": 9.99,
                 *         "currency": "currency",
                 *         "createdAt": "2026-11-21T10:00:00.000Z",
                 *         "updatedAt": "2026-11-21T10:00:00.000Z",
                 *         "paidAt": "2026-11-21T10:00:00.000Z",
                 *         "cancelledAt": "2026-11-21T10:00:00.000Z",
                 *         "refundedAt": "2026-11-21T10:00:00.000Z",
                 *         "_links": {
                 *           "self": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "pay": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "cancel": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "refund": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "receipt": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           },
                 *           "customer": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["OrderRefundedEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    reportCompletedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id, the same on every attempt: drop a delivery whose id you have handled */
                "webhook-id": string;
                /** @description The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay) */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint's secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks) */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c",
                 *       "type": "report.completed",
                 *       "timestamp": "2026-11-21T10:00:00.000Z",
                 *       "data": {
                 *         "id": 1,
                 *         "type": "sales",
                 *         "params": {
                 *           "from": "from",
                 *           "to": "to"
                 *         },
                 *         "status": "queued",
                 *         "result": null,
                 *         "error": "error",
                 *         "createdAt": "2026-11-21T10:00:00.000Z",
                 *         "updatedAt": "2026-11-21T10:00:00.000Z",
                 *         "finishedAt": "2026-11-21T10:00:00.000Z",
                 *         "_links": {
                 *           "self": {
                 *             "href": "/api/v2/users/1",
                 *             "method": "GET"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ReportCompletedEvent"];
            };
        };
        responses: {
            /** @description Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: the delivery succeeded (the body is ignored) */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead` */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
