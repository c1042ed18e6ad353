//! The one place judge calls go over the network: an async HTTP client
//! (reqwest with rustls, as the OCI client uses) on a small runtime owned
//! by the run, made on the first live call. A response body is read up to
//! a cap; a call that does not finish by its deadline is abandoned. No
//! redirect is followed: the request carries the endpoint's key (reqwest
//! drops `authorization` on a cross-host redirect, but not `x-api-key`), and
//! the verifier's configuration, not a server, says where judges are asked.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;
use vcc_contract::Provider;

use crate::config::Endpoint;

/// A response body larger than this is refused (answers are small).
const MAX_RESPONSE_BYTES: usize = 8 << 20;

pub struct Net {
    runtime: tokio::runtime::Runtime,
    client: reqwest::Client,
    /// Calls at once, per endpoint id.
    slots: std::sync::Mutex<HashMap<String, Arc<Semaphore>>>,
}

/// One HTTP exchange to make.
pub struct Send {
    pub endpoint: Endpoint,
    pub body: Vec<u8>,
    /// The key, read from the variable the configuration names.
    pub key: Option<String>,
    pub timeout: Duration,
}

/// What came back: a status and body, or why nothing did.
pub struct Received {
    pub status: u16,
    pub body: Vec<u8>,
    pub latency: Duration,
}

impl Net {
    pub fn start() -> Result<Net, String> {
        // One TLS provider for the process (an error means one is set).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("vcc-judge-net")
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the judge's network runtime: {e}"))?;
        let client = reqwest::Client::builder()
            .user_agent(concat!("vcc/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(30))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot make an HTTP client: {e}"))?;
        Ok(Net {
            runtime,
            client,
            slots: std::sync::Mutex::new(HashMap::new()),
        })
    }

    fn slots(&self, endpoint: &Endpoint) -> Arc<Semaphore> {
        let mut slots = self
            .slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        slots
            .entry(endpoint.id.clone())
            .or_insert_with(|| Arc::new(Semaphore::new(endpoint.concurrency)))
            .clone()
    }

    /// Make every exchange at once (each endpoint's `concurrency` at a
    /// time), and wait for all.
    pub fn send_all(&self, sends: Vec<Send>) -> Vec<Result<Received, String>> {
        let calls = sends.into_iter().map(|send| {
            let slots = self.slots(&send.endpoint);
            let client = self.client.clone();
            async move {
                let started = Instant::now();
                // Waiting for a slot counts against the deadline too.
                let exchange = async {
                    let _slot = slots
                        .acquire_owned()
                        .await
                        .map_err(|_| "the judge's network runtime stopped".to_string())?;
                    exchange(&client, &send).await
                };
                match tokio::time::timeout(send.timeout, exchange).await {
                    Ok(Ok((status, body))) => Ok(Received {
                        status,
                        body,
                        latency: started.elapsed(),
                    }),
                    Ok(Err(why)) => Err(why),
                    Err(_) => Err(format!(
                        "no answer from {} within the call's deadline ({})",
                        send.endpoint.host,
                        humantime::format_duration(send.timeout)
                    )),
                }
            }
        });
        self.runtime.block_on(futures_util::future::join_all(calls))
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        // Calls abandoned at a deadline may still be in flight; do not
        // wait for them, and never block inside another async runtime.
        let runtime = std::mem::replace(
            &mut self.runtime,
            match tokio::runtime::Builder::new_current_thread().build() {
                Ok(r) => r,
                Err(_) => return,
            },
        );
        runtime.shutdown_background();
    }
}

async fn exchange(client: &reqwest::Client, send: &Send) -> Result<(u16, Vec<u8>), String> {
    let e = &send.endpoint;
    let url = format!("{}{}", e.url, crate::provider::path(e.provider));
    let mut request = client
        .post(&url)
        .header("content-type", "application/json")
        .body(send.body.clone());
    if let Some(key) = &send.key {
        request = match e.provider {
            Provider::OpenaiCompatible => request.bearer_auth(key),
            Provider::Anthropic => request.header("x-api-key", key),
        };
    }
    if e.provider == Provider::Anthropic {
        request = request.header("anthropic-version", crate::provider::ANTHROPIC_VERSION);
    }
    let mut response = request
        .send()
        .await
        .map_err(|err| format!("cannot reach {}: {}", e.host, words(&err)))?;
    let status = response.status().as_u16();
    if response.status().is_redirection() {
        let to: String = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("nowhere")
            .chars()
            .take(200)
            .collect();
        return Err(format!(
            "{} answered {status}, a redirect to {to}: vcc follows no redirects (the request carries the endpoint's key); set the endpoint's url to the address that answers",
            e.host
        ));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|err| format!("{} broke off its answer: {}", e.host, words(&err)))?
    {
        if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(format!(
                "{} sent more than {} MiB; an answer is never that long",
                e.host,
                MAX_RESPONSE_BYTES >> 20
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((status, body))
}

/// An HTTP error in words, with its causes (never a header: the key
/// travels in one).
fn words(err: &reqwest::Error) -> String {
    use std::error::Error as _;
    let mut out = err.to_string();
    let mut source = err.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}
