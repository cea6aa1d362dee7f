//! Log-in sessions: access tokens, rotating refresh tokens, and checking
//! bearer credentials.

use chrono::NaiveDateTime;

use std::net::IpAddr;

use super::guard::{self, Subject};
use super::AccountError;
use crate::auth::{opaque, Authenticated, Credential};
use crate::db::session_cache::LiveSession;
use crate::db::{self, models::RefreshToken, models::Session, sessions::Rotation};
use crate::domain::ScopeSet;
use crate::state::AppState;

/// What a successful log-in or refresh hands out.
pub struct TokenPair {
    pub access_token: String,
    pub expires_in: u64,
    pub refresh_token: String,
}

fn new_refresh_token(
    state: &AppState,
    session_id: &str,
    now: NaiveDateTime,
) -> (String, RefreshToken) {
    let (secret, token_hash) = opaque::generate(opaque::REFRESH_PREFIX);
    let ttl =
        chrono::Duration::from_std(state.refresh_token_ttl).unwrap_or(chrono::Duration::days(30));
    let row = RefreshToken {
        id: uuid::Uuid::new_v4().to_string(),
        session_id: session_id.to_owned(),
        token_hash,
        created_at: now,
        expires_at: now + ttl,
        used_at: None,
    };
    (secret, row)
}

fn pair(
    state: &AppState,
    user_id: &str,
    session_id: &str,
    refresh_token: String,
) -> Result<TokenPair, AccountError> {
    Ok(TokenPair {
        access_token: state.jwt.issue(user_id, session_id)?,
        expires_in: state.jwt.ttl().as_secs(),
        refresh_token,
    })
}

/// Logs in with a username or email and a password, from `client`. Unknown
/// users are checked against a dummy hash so both failures take the same
/// time and look alike, and both count towards the per-account limit
/// (`guard`).
pub async fn log_in(
    state: &AppState,
    login: String,
    candidate: String,
    client: IpAddr,
) -> Result<TokenPair, AccountError> {
    let login = login.trim().to_lowercase();
    let (name, found) = (login.clone(), login);
    let user = db::run(&state.pool, move |conn| {
        db::users::find_by_login(conn, &found).map_err(AccountError::from)
    })
    .await?;
    // A computer player has no password: it is checked like an unknown login.
    let user = user.filter(|u| !u.is_bot());
    let (subject, stored) = match &user {
        Some(user) => (
            Subject::Account(user.id.to_string()),
            user.password_hash.clone(),
        ),
        None => (Subject::unknown_login(&name), state.dummy_hash.clone()),
    };
    let matches = guard::check_password(state, &subject, stored, candidate, client, true).await?;
    let user = match user {
        Some(user) if matches => user,
        _ => return Err(AccountError::InvalidCredentials),
    };

    let now = state.clock.now();
    let session = Session {
        id: uuid::Uuid::new_v4().to_string(),
        user_id: user.id.clone(),
        created_at: now,
        revoked_at: None,
    };
    let (secret, token) = new_refresh_token(state, &session.id, now);
    let session_id = session.id.clone();
    db::run(&state.pool, move |conn| {
        db::sessions::create(conn, &session, &token).map_err(AccountError::from)
    })
    .await?;
    tracing::info!(user_id = %user.id, session_id = %session_id, "logged in");
    pair(state, &user.id, &session_id, secret)
}

/// Swaps a refresh token for a new pair. Each refresh token works once;
/// presenting a spent one revokes its whole session, since either the client
/// or a thief holds a copy.
pub async fn refresh(state: &AppState, presented: String) -> Result<TokenPair, AccountError> {
    let now = state.clock.now();
    let digest = opaque::digest(&presented);
    let (secret, new_token) = new_refresh_token(state, "", now);
    let (user_id, session_id) = db::run(&state.pool, move |conn| {
        let Some((old, session)) = db::sessions::find_refresh_token(conn, &digest)? else {
            return Err(AccountError::InvalidRefreshToken);
        };
        if session.revoked_at.is_some() || old.expires_at <= now {
            return Err(AccountError::InvalidRefreshToken);
        }
        let new_token = RefreshToken {
            session_id: session.id.clone(),
            ..new_token
        };
        match db::sessions::rotate(conn, &old.id, &new_token, now)? {
            Rotation::Rotated => Ok((session.user_id, session.id)),
            Rotation::AlreadyUsed => {
                db::sessions::revoke(conn, &session.user_id, &session.id, now)?;
                tracing::warn!(session_id = %session.id, "refresh token reused; session revoked");
                Err(AccountError::RefreshTokenReused)
            }
        }
    })
    .await?;
    pair(state, &user_id, &session_id, secret)
}

/// Ends the session the refresh token belongs to. Unknown tokens are refused
/// so clients learn their token was wrong.
pub async fn log_out(state: &AppState, presented: String) -> Result<(), AccountError> {
    let digest = opaque::digest(&presented);
    let now = state.clock.now();
    db::run(&state.pool, move |conn| {
        let Some((_, session)) = db::sessions::find_refresh_token(conn, &digest)? else {
            return Err(AccountError::InvalidRefreshToken);
        };
        db::sessions::revoke(conn, &session.user_id, &session.id, now)?;
        Ok(())
    })
    .await
}

/// Resolves a bearer credential: a personal access token (by its prefix) or
/// a session's JWT, whose session must still be live.
pub async fn authenticate(state: &AppState, bearer: String) -> Result<Authenticated, AccountError> {
    if bearer.starts_with(opaque::PAT_PREFIX) {
        let digest = opaque::digest(&bearer);
        let now = state.clock.now();
        return db::run(&state.pool, move |conn| {
            let Some((token, user)) = db::tokens::find_by_hash(conn, &digest)? else {
                return Err(AccountError::InvalidAccessToken);
            };
            if token.expires_at.is_some_and(|at| at <= now) {
                return Err(AccountError::InvalidAccessToken);
            }
            // Record use at most once a minute: a write per request would
            // contend for SQLite's single writer for no real gain.
            if token
                .last_used_at
                .is_none_or(|at| now - at > chrono::Duration::minutes(1))
            {
                db::tokens::touch(conn, &token.id, now)?;
            }
            Ok(Authenticated {
                user_id: user.id,
                username: user.username,
                scopes: ScopeSet::from_stored(&token.scopes),
                credential: Credential::PersonalToken {
                    token_id: token.id.into_string(),
                    expires_at: token.expires_at,
                },
            })
        })
        .await;
    }
    let claims = state.jwt.verify(&bearer).map_err(|e| match e.kind() {
        // Signed by this service, so its lifetime can be trusted to be over.
        jsonwebtoken::errors::ErrorKind::ExpiredSignature => AccountError::AccessTokenExpired,
        _ => AccountError::InvalidAccessToken,
    })?;
    let authenticated = |session: LiveSession, session_id: String| Authenticated {
        user_id: session.user_id.into(),
        username: session.username,
        scopes: ScopeSet::all(),
        credential: Credential::Session {
            session_id,
            authenticated_at: session.authenticated_at,
        },
    };
    if let Some(session) = state.sessions.get(&claims.sid, &claims.sub) {
        return Ok(authenticated(session, claims.sid));
    }
    let cache = state.sessions.clone();
    let session = db::run(&state.pool, move |conn| {
        let start = cache.begin_read();
        let (user, authenticated_at) =
            db::sessions::live_session_user(conn, &claims.sid, &claims.sub)?
                .ok_or(AccountError::InvalidAccessToken)?;
        let session = LiveSession {
            user_id: user.id.into_string(),
            username: user.username,
            authenticated_at,
        };
        cache.keep(start, &claims.sid, session.clone());
        Ok::<_, AccountError>((session, claims.sid))
    })
    .await?;
    Ok(authenticated(session.0, session.1))
}
