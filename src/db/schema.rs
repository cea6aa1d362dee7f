//! Table definitions shared by both backends (portable column types only).

diesel::table! {
    users (id) {
        id -> Text,
        username -> Text,
        email -> Text,
        email_verified -> Bool,
        password_hash -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    sessions (id) {
        id -> Text,
        user_id -> Text,
        created_at -> Timestamp,
        revoked_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    refresh_tokens (id) {
        id -> Text,
        session_id -> Text,
        token_hash -> Text,
        created_at -> Timestamp,
        expires_at -> Timestamp,
        used_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    personal_access_tokens (id) {
        id -> Text,
        user_id -> Text,
        name -> Text,
        scopes -> Text,
        token_hash -> Text,
        created_at -> Timestamp,
        expires_at -> Nullable<Timestamp>,
        last_used_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    server_secrets (name) {
        name -> Text,
        value -> Text,
        created_at -> Timestamp,
    }
}

diesel::joinable!(sessions -> users (user_id));
diesel::joinable!(refresh_tokens -> sessions (session_id));
diesel::joinable!(personal_access_tokens -> users (user_id));

diesel::allow_tables_to_appear_in_same_query!(
    users,
    sessions,
    refresh_tokens,
    personal_access_tokens,
    server_secrets,
);
