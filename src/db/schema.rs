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
        claimed_email -> Nullable<Text>,
        bot_level -> Nullable<Integer>,
        time_zone -> Text,
        vacation_credit -> BigInt,
        vacation_credit_at -> Nullable<Timestamp>,
        vacation_started_at -> Nullable<Timestamp>,
        vacation_until -> Nullable<Timestamp>,
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
        minted_by -> Nullable<Text>,
    }
}

diesel::table! {
    server_secrets (name) {
        name -> Text,
        value -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    games (id) {
        id -> Text,
        created_by -> Nullable<Text>,
        status -> Text,
        days_per_move -> Nullable<Integer>,
        stuck_piece -> Text,
        illumination -> Text,
        allies -> Nullable<Text>,
        start_position -> Text,
        position -> Text,
        ply -> Integer,
        seq -> Integer,
        version -> Integer,
        to_move -> Nullable<Text>,
        result -> Nullable<Text>,
        deadline -> Nullable<Timestamp>,
        reminded_seq -> Nullable<Integer>,
        expires_at -> Nullable<Timestamp>,
        imported -> Bool,
        created_at -> Timestamp,
        started_at -> Nullable<Timestamp>,
        finished_at -> Nullable<Timestamp>,
        updated_at -> Timestamp,
        snapshot -> Nullable<Text>,
        rated -> Bool,
        draw_offer -> Nullable<Text>,
        time_control -> Text,
        pause_on_weekends -> Bool,
        vacation -> Bool,
        clocks -> Nullable<Text>,
        to_move_user -> Nullable<Text>,
    }
}

diesel::table! {
    bot_jobs (id) {
        id -> Text,
        game_id -> Text,
        user_id -> Text,
        kind -> Text,
        ply -> Integer,
        proposal_id -> Nullable<Text>,
        status -> Text,
        attempts -> Integer,
        next_attempt_at -> Timestamp,
        result -> Nullable<Text>,
        last_error -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    ratings (user_id) {
        user_id -> Text,
        mu -> Double,
        sigma -> Double,
        display -> Double,
        games -> Integer,
        updated_at -> Timestamp,
        opponents -> Integer,
    }
}

diesel::table! {
    rating_changes (game_id, user_id) {
        game_id -> Text,
        user_id -> Text,
        seat -> Text,
        place -> Integer,
        mu_before -> Double,
        sigma_before -> Double,
        mu_after -> Double,
        sigma_after -> Double,
        created_at -> Timestamp,
        uncounted -> Nullable<Text>,
    }
}

diesel::table! {
    offers_made (game_id, user_id, kind) {
        game_id -> Text,
        user_id -> Text,
        kind -> Text,
        made_at -> Timestamp,
    }
}

diesel::table! {
    game_seats (game_id, seat) {
        game_id -> Text,
        seat -> Text,
        user_id -> Nullable<Text>,
        display_name -> Nullable<Text>,
        state -> Text,
        joined_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    game_actions (game_id, seq) {
        game_id -> Text,
        seq -> Integer,
        ply -> Nullable<Integer>,
        kind -> Text,
        notation -> Text,
        seat -> Nullable<Text>,
        user_id -> Nullable<Text>,
        position_after -> Text,
        effects -> Text,
        created_at -> Timestamp,
        premove -> Bool,
    }
}

diesel::table! {
    alliance_proposals (id) {
        id -> Text,
        game_id -> Text,
        from_seat -> Text,
        to_seat -> Text,
        status -> Text,
        created_at -> Timestamp,
        resolved_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    game_events (id) {
        id -> Text,
        game_id -> Text,
        event_type -> Text,
        user_id -> Text,
        payload -> Text,
        created_at -> Timestamp,
        stream_order -> BigInt,
    }
}

diesel::table! {
    chat_messages (game_id, n) {
        game_id -> Text,
        n -> Integer,
        user_id -> Text,
        from_seat -> Text,
        to_seat -> Nullable<Text>,
        body -> Text,
        created_at -> Timestamp,
        to_user_id -> Nullable<Text>,
    }
}

diesel::table! {
    chat_mutes (game_id, user_id) {
        game_id -> Text,
        user_id -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    game_notes (game_id, user_id) {
        game_id -> Text,
        user_id -> Text,
        body -> Text,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    premoves (game_id, user_id) {
        game_id -> Text,
        user_id -> Text,
        seat -> Text,
        from_ply -> Integer,
        lines -> Text,
        updated_at -> Timestamp,
    }
}

diesel::joinable!(game_seats -> games (game_id));
diesel::joinable!(game_actions -> games (game_id));
diesel::joinable!(alliance_proposals -> games (game_id));
diesel::table! {
    webhooks (id) {
        id -> Text,
        user_id -> Text,
        url -> Text,
        events -> Text,
        game_id -> Nullable<Text>,
        secret -> Text,
        active -> Bool,
        failure_count -> Integer,
        disabled_reason -> Nullable<Text>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        unreachable_streak -> Integer,
        backoff_until -> Nullable<Timestamp>,
    }
}

diesel::table! {
    webhook_deliveries (id) {
        id -> Text,
        webhook_id -> Text,
        event_id -> Text,
        event_type -> Text,
        payload -> Text,
        status -> Text,
        attempts -> Integer,
        next_attempt_at -> Timestamp,
        last_status_code -> Nullable<Integer>,
        last_error -> Nullable<Text>,
        last_duration_ms -> Nullable<Integer>,
        created_at -> Timestamp,
        delivered_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    webhook_attempts (id) {
        id -> Text,
        delivery_id -> Text,
        attempted_at -> Timestamp,
        status_code -> Nullable<Integer>,
        duration_ms -> Integer,
        error -> Nullable<Text>,
        finished -> Bool,
    }
}

diesel::table! {
    mail_messages (id) {
        id -> Text,
        user_id -> Text,
        event_id -> Nullable<Text>,
        kind -> Text,
        to_address -> Text,
        subject -> Text,
        text_body -> Text,
        html_body -> Text,
        unsubscribe_url -> Nullable<Text>,
        status -> Text,
        attempts -> Integer,
        next_attempt_at -> Timestamp,
        last_error -> Nullable<Text>,
        created_at -> Timestamp,
        sent_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    outbox_pending (channel, event_id) {
        channel -> Text,
        event_id -> Text,
    }
}

diesel::table! {
    email_opt_outs (user_id, event_type) {
        user_id -> Text,
        event_type -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    password_guards (subject) {
        subject -> Text,
        failures -> Integer,
        blocked_until -> Nullable<Timestamp>,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    known_networks (user_id, network) {
        user_id -> Text,
        network -> Text,
        last_seen_at -> Timestamp,
    }
}

diesel::joinable!(game_events -> games (game_id));
diesel::joinable!(mail_messages -> users (user_id));
diesel::joinable!(bot_jobs -> games (game_id));
diesel::joinable!(ratings -> users (user_id));
diesel::joinable!(rating_changes -> games (game_id));
diesel::joinable!(outbox_pending -> game_events (event_id));
diesel::joinable!(email_opt_outs -> users (user_id));
diesel::joinable!(sessions -> users (user_id));
diesel::joinable!(refresh_tokens -> sessions (session_id));
diesel::joinable!(personal_access_tokens -> users (user_id));
diesel::joinable!(webhook_deliveries -> webhooks (webhook_id));
diesel::joinable!(webhook_attempts -> webhook_deliveries (delivery_id));

diesel::allow_tables_to_appear_in_same_query!(
    users,
    sessions,
    refresh_tokens,
    personal_access_tokens,
    server_secrets,
    games,
    game_seats,
    offers_made,
    game_actions,
    alliance_proposals,
    game_events,
    webhooks,
    webhook_deliveries,
    webhook_attempts,
    mail_messages,
    outbox_pending,
    email_opt_outs,
    password_guards,
    known_networks,
    bot_jobs,
    ratings,
    rating_changes,
    chat_messages,
    chat_mutes,
    game_notes,
    premoves,
);

diesel::table! {
    time_gifts (game_id, ply, from_seat) {
        game_id -> Text,
        ply -> Integer,
        from_seat -> Text,
        to_seat -> Text,
        seconds -> BigInt,
        created_at -> Timestamp,
    }
}
