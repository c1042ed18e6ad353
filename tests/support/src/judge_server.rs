//! A scripted AI judge on loopback: an HTTP/1.1 server that speaks the
//! OpenAI chat completions API (`POST /v1/chat/completions`) and the
//! Anthropic Messages API (`POST /v1/messages`), answering each request as
//! the test's script says — a score, malformed text, an HTTP error, a slow
//! answer — and keeping every request it received (headers and body) for
//! the test to look at.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    /// Header names in lowercase.
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Everything the judge was shown, as one text.
    pub fn prompt_text(&self) -> String {
        let mut out = String::new();
        if let Some(system) = self.body.get("system").and_then(Value::as_str) {
            out.push_str(system);
        }
        for m in self.body["messages"].as_array().into_iter().flatten() {
            out.push('\n');
            out.push_str(m["content"].as_str().unwrap_or_default());
        }
        out
    }

    pub fn is_anthropic(&self) -> bool {
        self.path.ends_with("/messages")
    }
}

/// What the server answers.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A well-formed answer `{score, rationale}` in the provider's shape.
    Score(f64, String),
    /// A well-formed response whose answer is this JSON value.
    Answer(Value),
    /// A well-formed response whose answer text is this (say, not JSON).
    Text(String),
    /// Any status and body.
    Raw(u16, String),
    /// The reply, after a wait.
    Slow(Duration, Box<Reply>),
    /// `307 Temporary Redirect` to this URL.
    Redirect(String),
}

pub type Script = dyn Fn(&Received, usize) -> Reply + Send + Sync;

pub struct JudgeServer {
    /// `http://127.0.0.1:PORT/v1`: the endpoint's url.
    pub url: String,
    /// `127.0.0.1:PORT`.
    pub host: String,
    received: Arc<Mutex<Vec<Received>>>,
}

impl JudgeServer {
    /// Start answering with `script` (given each request and how many
    /// came before it).
    pub fn start(
        script: impl Fn(&Received, usize) -> Reply + Send + Sync + 'static,
    ) -> JudgeServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let host = listener.local_addr().expect("local address").to_string();
        let received = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<Script> = Arc::new(script);
        let log = received.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (script, log) = (script.clone(), log.clone());
                std::thread::spawn(move || serve(stream, &*script, &log));
            }
        });
        JudgeServer {
            url: format!("http://{host}/v1"),
            host,
            received,
        }
    }

    /// Every request so far, in the order they came.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, script: &Script, log: &Mutex<Vec<Received>>) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone a stream"));
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let path = line
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
            break;
        }
        if let Some((name, value)) = h.trim_end().split_once(':') {
            headers.push((name.trim().to_lowercase(), value.trim().to_string()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let request = Received {
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    let n = {
        let mut log = log.lock().unwrap();
        log.push(request.clone());
        log.len() - 1
    };
    let mut reply = script(&request, n);
    while let Reply::Slow(wait, then) = reply {
        std::thread::sleep(wait);
        reply = *then;
    }
    let location = match &reply {
        Reply::Redirect(to) => format!("location: {to}\r\n"),
        _ => String::new(),
    };
    let (status, body) = render(&request, reply);
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {status} X\r\n{location}content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.flush();
}

fn render(request: &Received, reply: Reply) -> (u16, String) {
    let model = request.body["model"].as_str().unwrap_or("?").to_string();
    let answer = match reply {
        Reply::Raw(status, body) => return (status, body),
        Reply::Redirect(_) => return (307, "{}".into()),
        Reply::Slow(..) => return (500, "{}".into()),
        Reply::Score(score, rationale) => json!({ "score": score, "rationale": rationale }),
        Reply::Answer(value) => value,
        Reply::Text(text) => {
            return (200, envelope(request, &model, Err(text)).to_string());
        }
    };
    (200, envelope(request, &model, Ok(answer)).to_string())
}

/// A success response: the answer as JSON, or raw text.
fn envelope(request: &Received, model: &str, answer: Result<Value, String>) -> Value {
    let input = request.prompt_text().len() as u64 / 4;
    if request.is_anthropic() {
        let content = match answer {
            Ok(value) => {
                json!([{ "type": "tool_use", "id": "toolu_1", "name": "answer", "input": value }])
            }
            Err(text) => json!([{ "type": "text", "text": text }]),
        };
        json!({
            "id": "msg_1", "type": "message", "role": "assistant",
            "model": format!("{model}-served"),
            "content": content,
            "stop_reason": "tool_use",
            "usage": { "input_tokens": input, "output_tokens": 20 }
        })
    } else {
        let text = match answer {
            Ok(value) => value.to_string(),
            Err(text) => text,
        };
        json!({
            "id": "chatcmpl-1", "object": "chat.completion",
            "model": format!("{model}-served"),
            "choices": [{ "index": 0, "message": { "role": "assistant", "content": text }, "finish_reason": "stop" }],
            "usage": { "prompt_tokens": input, "completion_tokens": 20, "total_tokens": input + 20 }
        })
    }
}
