//! Building and running the server. `Application::build` binds its own
//! listener, so tests can ask for port 0 and read the real port back.

use std::net::TcpListener;
use std::process::ExitCode;
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::middleware::{from_fn, ErrorHandlers};
use actix_web::{web, App, HttpServer};
use anyhow::Context as _;
use utoipa_swagger_ui::{Config as SwaggerConfig, SwaggerUi};

use crate::auth::jwt::JwtKeys;
use crate::auth::rate_limit::{RateLimits, TrustedProxies};
use crate::auth::{opaque, password};
use crate::clock::Clock;
use crate::config::Settings;
use crate::db::{self, Pool};
use crate::notify::mail::{self, MailContext};
use crate::notify::targets::{Resolver, SystemResolver};
use crate::state::AppState;
use crate::{error, jobs, notify, routes, telemetry};

/// Name of the generated JWT signing key in `server_secrets`.
const JWT_KEY_NAME: &str = "jwt_signing_key";

/// Parts of the server that tests may replace; production uses the defaults.
#[derive(Default)]
pub struct Dependencies {
    /// Looks up webhook hosts (default: the system's resolver). Whatever it
    /// answers, the target policy still filters.
    pub webhook_resolver: Option<Resolver>,
    /// The time (default: the system clock).
    pub clock: Option<Clock>,
}

/// A bound, not yet running, server.
pub struct Application {
    port: u16,
    server: Server,
    jobs: jobs::Handle,
    closing: std::sync::Arc<tokio::sync::watch::Sender<bool>>,
}

/// Stops a running server as SIGTERM does: live streams end with a last
/// message, then requests drain.
#[derive(Clone)]
pub struct Stopper {
    server: actix_web::dev::ServerHandle,
    closing: std::sync::Arc<tokio::sync::watch::Sender<bool>>,
}

impl Stopper {
    pub async fn stop(&self, graceful: bool) {
        self.closing.send_replace(true);
        self.server.stop(graceful).await;
    }
}

impl Application {
    /// Opens the database, applies migrations, loads the signing key and binds
    /// `settings.http.bind`.
    pub async fn build(settings: Settings) -> anyhow::Result<Self> {
        Self::build_with(settings, Dependencies::default()).await
    }

    /// As [`Application::build`], with parts replaced (tests).
    pub async fn build_with(
        settings: Settings,
        dependencies: Dependencies,
    ) -> anyhow::Result<Self> {
        let db_settings = settings.clone();
        let (pool, jwt_secret, dummy_hash) = actix_web::rt::task::spawn_blocking(move || {
            let pool = open_database(&db_settings)?;
            let secret = match &db_settings.auth.jwt_secret {
                Some(secret) => secrecy::ExposeSecret::expose_secret(secret).to_owned(),
                None => {
                    let mut conn = pool.get().context("no database connection")?;
                    db::secrets::get_or_create(&mut conn, JWT_KEY_NAME, opaque::signing_key)
                        .context("loading the generated JWT signing key")?
                }
            };
            let dummy = password::dummy_hash()?;
            anyhow::Ok((pool, secret, dummy))
        })
        .await
        .context("start-up task failed")??;

        let clock = dependencies.clock.unwrap_or_default();
        let (closing, closing_rx) = tokio::sync::watch::channel(false);
        if let crate::config::DatabaseUrl::Postgres(url) = &settings.database.url {
            db::live::spawn_relay(url.to_string(), closing_rx.clone());
        }
        let mail = MailContext::new(
            &settings.mail,
            jwt_secret.as_bytes(),
            settings.auth.jwt_issuer.clone(),
            clock.clone(),
        )?;
        let state = AppState {
            pool: pool.clone(),
            sessions: db::session_cache::SessionCache::for_database(&settings.database.url),
            jwt: JwtKeys::new(
                jwt_secret.as_bytes(),
                settings.auth.jwt_issuer.clone(),
                settings.auth.jwt_audience.clone(),
                settings.auth.access_token_ttl,
                clock.clone(),
            ),
            clock: clock.clone(),
            rate_limits: RateLimits::new(settings.auth.rate_limit_per_minute),
            readiness: Default::default(),
            streams: std::sync::Arc::new(crate::state::Streams::new(settings.streams, closing_rx)),
            limits: settings.limits,
            body_timeout: settings.http.body_timeout,
            in_flight: std::sync::Arc::new(crate::state::InFlight::new(
                settings.http.max_requests_per_client,
            )),
            trusted_proxies: TrustedProxies::new(settings.http.trusted_proxies.clone()),
            dummy_hash,
            refresh_token_ttl: settings.auth.refresh_token_ttl,
            max_body_bytes: settings.http.max_body_bytes,
            games: crate::games::Games {
                pool: pool.clone(),
                settings: games_settings(&settings),
            },
            webhooks: crate::notify::Settings::from_config(
                &settings,
                dependencies
                    .webhook_resolver
                    .unwrap_or_else(|| std::sync::Arc::new(SystemResolver)),
                clock.clone(),
            ),
            mail,
        };

        let listener = TcpListener::bind(&settings.http.bind)
            .with_context(|| format!("SANNIN_BIND: cannot listen on {}", settings.http.bind))?;
        if let Some(bytes) = settings.http.send_buffer_bytes {
            socket2::SockRef::from(&listener)
                .set_send_buffer_size(bytes)
                .context("SANNIN_SEND_BUFFER_BYTES: cannot set the send buffer")?;
        }
        let port = listener.local_addr()?.port();
        let (server, jobs) = run(listener, state, &settings)?;
        Ok(Self {
            port,
            server,
            jobs,
            closing: std::sync::Arc::new(closing),
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops the server as SIGTERM would (tests).
    pub fn stopper(&self) -> Stopper {
        Stopper {
            server: self.server.handle(),
            closing: self.closing.clone(),
        }
    }

    /// Serves until SIGTERM or ctrl-c, then ends live streams and drains
    /// in-flight requests and background jobs (what cannot finish in time is
    /// given back).
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let stopper = self.stopper();
        let signals = actix_web::rt::spawn(async move {
            // SIGTERM or ctrl-c stops gracefully; another, or SIGQUIT, at once.
            let mut graceful = stop_signal().await;
            loop {
                tracing::info!(graceful, "stopping");
                let stopping = stopper.clone();
                let stop = actix_web::rt::spawn(async move { stopping.stop(graceful).await });
                if !graceful {
                    let _ = stop.await;
                    return;
                }
                stop_signal().await;
                graceful = false;
            }
        });
        let served = self.server.await;
        self.closing.send_replace(true);
        signals.abort();
        self.jobs.shutdown().await;
        served
    }
}

/// Waits for SIGTERM or ctrl-c (true: stop gracefully) or SIGQUIT (false).
async fn stop_signal() -> bool {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut term), Ok(mut quit)) =
            (signal(SignalKind::terminate()), signal(SignalKind::quit()))
        else {
            let _ = tokio::signal::ctrl_c().await;
            return true;
        };
        tokio::select! {
            _ = term.recv() => true,
            _ = tokio::signal::ctrl_c() => true,
            _ = quit.recv() => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        true
    }
}

fn games_settings(settings: &Settings) -> crate::games::Settings {
    let day = chrono::Duration::seconds(settings.games.day_seconds as i64);
    crate::games::Settings {
        day,
        open_for: day * settings.games.invitation_days as i32,
        vacation: crate::games::VacationRules {
            earn_every: day * settings.games.vacation_earn_every_days as i32,
            max_days: settings.games.vacation_max_days as i32,
        },
        limits: settings.limits,
    }
}

/// Connects and migrates; blocking. Migrations run on a connection of their
/// own, without the statement and lock timeouts that bound requests.
fn open_database(settings: &Settings) -> anyhow::Result<Pool> {
    let applied = {
        let migrator = db::connect(&settings.database.url, 1, settings.database.timeout)?;
        let mut conn = migrator.get().context("no database connection")?;
        let applied = db::run_migrations(&mut conn)?;
        db::refresh_statistics(&mut conn).context("refreshing the planner's statistics")?;
        applied
    };
    let pool = db::connect_with(
        &settings.database.url,
        settings.database.pool_size,
        settings.database.timeout,
        db::QueryLimits {
            statement_timeout: settings.database.statement_timeout,
            lock_timeout: settings.database.lock_timeout,
        },
    )?;
    tracing::info!(
        database = %settings.database.url,
        backend = settings.database.url.backend_name(),
        migrations_applied = applied,
        "database ready"
    );
    Ok(pool)
}

fn run(
    listener: TcpListener,
    state: AppState,
    settings: &Settings,
) -> anyhow::Result<(Server, jobs::Handle)> {
    let state = web::Data::new(state);

    // Forget clients whose rate allowance has refilled, so the limiter's
    // memory stays bounded.
    let sweeper = state.clone();
    actix_web::rt::spawn(async move {
        let mut every = actix_web::rt::time::interval(Duration::from_secs(60));
        loop {
            every.tick().await;
            sweeper.rate_limits.forget_idle();
        }
    });

    let jobs = jobs(&state, settings)?;

    let mut server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .wrap(ErrorHandlers::new().default_handler(error::render_bare_error))
            .wrap(from_fn(routes::headers::security_headers))
            .wrap(from_fn(routes::health::watch_unavailability))
            .wrap(from_fn(routes::nul::refuse_nul))
            .wrap(from_fn(routes::limits::per_client))
            .wrap(from_fn(telemetry::trace_request))
            .configure(routes::configure)
            .service(
                SwaggerUi::new("/docs/{_:.*}").config(SwaggerConfig::new(["/api/v1/openapi.json"])),
            )
            .default_service(web::to(routes::not_found))
    })
    // Headers must arrive within 5 s, an idle kept-alive connection closes
    // after 5 s, and bodies have `SANNIN_BODY_TIMEOUT_MS` (see routes/json.rs).
    .client_request_timeout(Duration::from_secs(5))
    // A client that closes its connection is gone: drop its answer at once,
    // so a stream gives back its place when the client leaves, not when the
    // next keep-alive fails to reach it (a reconnecting client would meet
    // its own old stream at the limit).
    .h1_allow_half_closed(false)
    .keep_alive(Duration::from_secs(5))
    .max_connections(settings.http.max_connections)
    .listen(listener)?
    // `Application::run_until_stopped` handles the signals: streams end first.
    .disable_signals()
    .shutdown_timeout(settings.http.shutdown_timeout.as_secs());
    if let Some(workers) = settings.http.workers {
        server = server.workers(workers);
    }
    Ok((server.run(), jobs))
}

/// The background work every process runs: webhook deliveries, mail and
/// computer players' turns (the queue's claims keep each attempt to one
/// process), and the sweep of
/// deadlines, reminders and lapsed invitations (each change happens once,
/// guarded by the game row's version).
fn jobs(state: &AppState, settings: &Settings) -> anyhow::Result<jobs::Handle> {
    let mut runner = jobs::Runner::new(
        state.pool.clone(),
        state.clock.clone(),
        settings.http.shutdown_timeout,
    );
    runner
        .channel(notify::delivery::Webhooks::new(
            state.webhooks.clone(),
            state.mail.clone(),
        )?)
        .channel(mail::sending::Mail {
            ctx: state.mail.clone(),
            transport: mail::transport::Transport::new(&settings.mail.transport)?,
        })
        .channel(crate::games::bot_turns::BotTurns {
            games: state.games.clone(),
            clock: state.clock.clone(),
            think: settings.games.bot_think,
            searches: settings.games.bot_searches,
            poll_interval: settings.games.bot_poll_interval,
        });
    let games = state.games.settings;
    runner.every(
        "deadlines",
        settings.games.sweep_interval,
        move |conn, now| {
            let swept = crate::games::sweeper::sweep_once(conn, &games, now)?;
            Ok((swept != Default::default()).then(|| swept.to_string()))
        },
    );
    runner.every("snapshots", Duration::from_secs(10), |conn, _| {
        let n = crate::games::snapshot::fill_missing(conn, 100)?;
        Ok((n > 0).then(|| format!("{n} game snapshots filled")))
    });
    runner.every("statistics", Duration::from_secs(3_600), |conn, _| {
        db::refresh_statistics(conn)?;
        Ok(None)
    });
    Ok(runner.start())
}

/// Reads `.env` (if any) and the environment; prints one line and gives an
/// exit code on failure.
fn load_settings() -> Result<Settings, ExitCode> {
    if let Err(e) = dotenvy::dotenv() {
        if !e.not_found() {
            eprintln!("sannin: .env: {e}");
            return Err(ExitCode::from(2));
        }
    }
    Settings::from_env().map_err(|e| {
        eprintln!("sannin: configuration error: {e}");
        ExitCode::from(2)
    })
}

/// `sannin serve`: run the server until stopped.
pub fn serve() -> ExitCode {
    let settings = match load_settings() {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    telemetry::init(&settings);
    actix_web::rt::System::new().block_on(async move {
        let bind = settings.http.bind.clone();
        let app = match Application::build(settings).await {
            Ok(app) => app,
            Err(e) => {
                tracing::error!(error = %format!("{e:#}"), "start-up failed");
                eprintln!("sannin: start-up failed: {e:#}");
                return ExitCode::FAILURE;
            }
        };
        let host = bind
            .rsplit_once(':')
            .map_or(bind.as_str(), |(host, _)| host);
        tracing::info!(
            "listening on http://{host}:{port} (API docs at /docs)",
            port = app.port()
        );
        match app.run_until_stopped().await {
            Ok(()) => {
                tracing::info!("stopped");
                ExitCode::SUCCESS
            }
            Err(e) => {
                tracing::error!(error = %e, "server failed");
                ExitCode::FAILURE
            }
        }
    })
}

/// `sannin migrate`: apply pending migrations and exit.
pub fn migrate() -> ExitCode {
    let settings = match load_settings() {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    telemetry::init(&settings);
    let result =
        db::connect(&settings.database.url, 1, settings.database.timeout).and_then(|pool| {
            let mut conn = pool.get().context("no database connection")?;
            db::run_migrations(&mut conn)
        });
    match result {
        Ok(applied) => {
            println!(
                "applied {applied} migration(s) to {}",
                settings.database.url
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("sannin: migration failed: {e:#}");
            ExitCode::FAILURE
        }
    }
}
