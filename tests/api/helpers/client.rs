//! The API client: one method per endpoint, registered users and tokens,
//! and assertions on problem answers.

use reqwest::{Method, Response, StatusCode};
use serde_json::{json, Value};

use super::app::TestApp;

/// A registered account.
#[derive(Debug, Clone)]
pub struct TestUser {
    pub username: String,
    pub email: String,
    pub password: String,
}

/// A log-in's tokens.
#[derive(Debug, Clone)]
pub struct Tokens {
    pub access: String,
    pub refresh: String,
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    pub async fn request(&self, method: Method, path: &str) -> Response {
        self.client
            .request(method, self.url(path))
            .send()
            .await
            .expect("request sent")
    }

    async fn post_json(&self, path: &str, body: &Value) -> Response {
        self.client
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .expect("request sent")
    }

    pub async fn healthz(&self) -> Response {
        self.request(Method::GET, "/healthz").await
    }

    pub async fn readyz(&self) -> Response {
        self.request(Method::GET, "/readyz").await
    }

    pub async fn openapi_json(&self) -> Response {
        self.request(Method::GET, "/api/v1/openapi.json").await
    }

    pub async fn register(&self, body: &Value) -> Response {
        self.post_json("/api/v1/accounts", body).await
    }

    pub async fn login(&self, username: &str, password: &str) -> Response {
        self.post_json(
            "/api/v1/auth/token",
            &json!({"username": username, "password": password}),
        )
        .await
    }

    pub async fn refresh(&self, refresh_token: &str) -> Response {
        self.post_json(
            "/api/v1/auth/refresh",
            &json!({"refresh_token": refresh_token}),
        )
        .await
    }

    pub async fn logout(&self, refresh_token: &str) -> Response {
        self.post_json(
            "/api/v1/auth/logout",
            &json!({"refresh_token": refresh_token}),
        )
        .await
    }

    pub async fn get_me(&self, bearer: &str) -> Response {
        self.client
            .get(self.url("/api/v1/me"))
            .bearer_auth(bearer)
            .send()
            .await
            .expect("request sent")
    }

    pub async fn patch_me(&self, bearer: &str, body: &Value) -> Response {
        self.client
            .patch(self.url("/api/v1/me"))
            .bearer_auth(bearer)
            .json(body)
            .send()
            .await
            .expect("request sent")
    }

    pub async fn create_token(&self, bearer: &str, body: &Value) -> Response {
        self.client
            .post(self.url("/api/v1/me/tokens"))
            .bearer_auth(bearer)
            .json(body)
            .send()
            .await
            .expect("request sent")
    }

    pub async fn list_tokens(&self, bearer: &str) -> Response {
        self.client
            .get(self.url("/api/v1/me/tokens"))
            .bearer_auth(bearer)
            .send()
            .await
            .expect("request sent")
    }

    pub async fn delete_token(&self, bearer: &str, id: &str) -> Response {
        self.client
            .delete(self.url(&format!("/api/v1/me/tokens/{id}")))
            .bearer_auth(bearer)
            .send()
            .await
            .expect("request sent")
    }

    pub async fn get_user(&self, username: &str) -> Response {
        self.request(Method::GET, &format!("/api/v1/users/{username}"))
            .await
    }

    /// Registers `username` (with a derived email and password), asserting 201.
    pub async fn register_user(&self, username: &str) -> TestUser {
        let user = TestUser {
            username: username.to_owned(),
            email: format!("{username}@example.com"),
            password: format!("{username}-long-password"),
        };
        let res = self
            .register(&json!({
                "username": user.username,
                "email": user.email,
                "password": user.password,
            }))
            .await;
        assert_eq!(res.status(), StatusCode::CREATED, "{:?}", res.text().await);
        user
    }

    /// Logs `user` in, asserting 200.
    pub async fn tokens_for(&self, user: &TestUser) -> Tokens {
        let res = self.login(&user.username, &user.password).await;
        assert_eq!(res.status(), StatusCode::OK);
        let body: Value = res.json().await.unwrap();
        Tokens {
            access: body["access_token"].as_str().unwrap().to_owned(),
            refresh: body["refresh_token"].as_str().unwrap().to_owned(),
        }
    }

    /// Creates a personal access token with `scopes`, returning its secret and id.
    pub async fn personal_token(&self, bearer: &str, scopes: &[&str]) -> (String, String) {
        let res = self
            .create_token(bearer, &json!({"name": "test", "scopes": scopes}))
            .await;
        assert_eq!(res.status(), StatusCode::CREATED);
        let body: Value = res.json().await.unwrap();
        (
            body["token"].as_str().unwrap().to_owned(),
            body["id"].as_str().unwrap().to_owned(),
        )
    }
}

/// Asserts `res` is a problem document with `status` and `code`, and returns it.
pub async fn assert_problem(res: Response, status: StatusCode, code: &str) -> Value {
    assert_eq!(res.status(), status);
    assert!(
        res.headers().contains_key("x-request-id"),
        "every response carries a request id"
    );
    let content_type = res
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert_eq!(content_type, "application/problem+json");
    let body: Value = res.json().await.expect("a JSON problem body");
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["type"], format!("/problems/{code}"));
    assert_eq!(body["status"], status.as_u16());
    assert!(body["title"].as_str().is_some_and(|t| !t.is_empty()));
    assert!(body["detail"].as_str().is_some_and(|d| !d.is_empty()));
    body
}

/// The fields named in a validation problem.
pub fn error_fields(problem: &Value) -> Vec<String> {
    problem["errors"]
        .as_array()
        .expect("validation problems list their fields")
        .iter()
        .map(|e| e["field"].as_str().unwrap().to_owned())
        .collect()
}
