//! `thehook ui` as a browser and an attacker meet it: the real binary
//! serving a temp project, spoken to over plain HTTP. The page itself runs
//! in headless Chromium in `tests/ui.test.mjs`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};

use serde_json::{json, Value};

use crate::common::*;

/// A running `thehook ui`, stopped with Ctrl-C (SIGINT) when dropped.
struct Page {
    child: Child,
    port: u16,
    token: String,
}

impl Page {
    fn serve(p: &Project) -> Page {
        let mut child = p
            .std_cmd(&["ui", "--no-open"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        // thehook ui: http://127.0.0.1:<port>/?token=<token>#/sessions
        let url = line
            .trim()
            .strip_prefix("thehook ui: http://127.0.0.1:")
            .unwrap();
        let (port, rest) = url.split_once('/').unwrap();
        let token = rest
            .strip_prefix("?token=")
            .unwrap()
            .split('#')
            .next()
            .unwrap();
        Page {
            child,
            port: port.parse().unwrap(),
            token: token.to_string(),
        }
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The status, headers and body of a raw request.
    fn raw(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, String)],
        body: &str,
    ) -> (u16, String, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
        for (k, v) in headers {
            request += &format!("{k}: {v}\r\n");
        }
        if !body.is_empty() {
            request += &format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                body.len()
            );
        }
        request += "\r\n";
        request += body;
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        (status, head.to_string(), body.to_string())
    }

    /// A GET as the page makes it.
    fn get(&self, path: &str) -> Value {
        let (status, _, body) = self.raw(
            "GET",
            path,
            &[
                ("Host", self.host()),
                ("X-Thehook-Token", self.token.clone()),
            ],
            "",
        );
        assert_eq!(status, 200, "{path}: {body}");
        serde_json::from_str(&body).unwrap()
    }

    /// A POST as the page makes it.
    fn post(&self, path: &str, body: Value) -> Value {
        let headers = [
            ("Host", self.host()),
            ("Origin", format!("http://{}", self.host())),
            ("X-Thehook-Token", self.token.clone()),
        ];
        let (status, _, answer) = self.raw("POST", path, &headers, &body.to_string());
        assert_eq!(status, 200, "{path}: {answer}");
        serde_json::from_str(&answer).unwrap()
    }

    fn stop(mut self) -> std::process::ExitStatus {
        let status = self.interrupt();
        std::mem::forget(self);
        status
    }

    fn interrupt(&mut self) -> std::process::ExitStatus {
        // Ctrl-C, as a person stops it.
        let pid = self.child.id().to_string();
        std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap();
        self.child.wait().unwrap()
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        self.interrupt();
    }
}

fn committed_demo() -> Project {
    let p = Project::demo().lexical_only();
    git(p.root(), &["init", "-q"]);
    git(p.root(), &["add", "-A"]);
    git(p.root(), &["commit", "-qm", "memory"]);
    p
}

#[test]
fn the_page_answers_only_its_own_requests() {
    let p = committed_demo();
    let page = Page::serve(&p);
    let host = ("Host", page.host());
    let token = ("X-Thehook-Token", page.token.clone());
    // The page itself, with the token in its URL: it names the token and
    // carries a policy that runs no script but its own.
    let (status, head, body) = page.raw(
        "GET",
        &format!("/?token={}", page.token),
        std::slice::from_ref(&host),
        "",
    );
    assert_eq!(status, 200);
    assert!(body.contains(&page.token));
    let head = head.to_lowercase();
    assert!(
        head.contains("content-security-policy: default-src 'none'; script-src 'self'"),
        "{head}"
    );
    assert!(head.contains("referrer-policy: no-referrer"));
    let refused = |method: &str, path: &str, headers: &[(&str, String)], body: &str| {
        let (status, _, answer) = page.raw(method, path, headers, body);
        assert_eq!(status, 403, "{method} {path} {headers:?}: {answer}");
    };
    refused("GET", "/", std::slice::from_ref(&host), "");
    refused("GET", "/api/sessions", std::slice::from_ref(&host), "");
    refused(
        "GET",
        "/api/sessions",
        &[host.clone(), ("X-Thehook-Token", "0".repeat(32))],
        "",
    );
    // DNS rebinding: the attacker's name in Host, the token somehow known.
    refused(
        "GET",
        "/api/sessions",
        &[
            ("Host", format!("evil.example:{}", page.port)),
            token.clone(),
        ],
        "",
    );
    // Another site's page in the same browser.
    let foreign = ("Origin", "http://evil.example".to_string());
    refused(
        "GET",
        "/api/sessions",
        &[host.clone(), token.clone(), foreign.clone()],
        "",
    );
    let cross = ("Sec-Fetch-Site", "cross-site".to_string());
    refused(
        "GET",
        "/api/sessions",
        &[host.clone(), token.clone(), cross],
        "",
    );
    let forget = json!({ "id": "303ed6ef5993" }).to_string();
    refused(
        "POST",
        "/api/review/forget",
        &[host.clone(), token.clone(), foreign],
        &forget,
    );
    refused(
        "POST",
        "/api/review/forget",
        &[host.clone(), token.clone()],
        &forget,
    );
    let ours = ("Origin", format!("http://{}", page.host()));
    refused(
        "POST",
        &format!("/api/review/forget?token={}", page.token),
        &[host.clone(), ours],
        &forget,
    );
    // No file outside .thehook/ is read, however it is named.
    std::fs::write(p.root().join("secret.md"), "password").unwrap();
    for path in [
        "secret.md",
        ".thehook/../secret.md",
        "/etc/passwd",
        ".thehook/config.yaml",
    ] {
        let (status, _, answer) = page.raw(
            "GET",
            &format!("/api/markdown?path={}&line=1", path.replace('/', "%2F")),
            &[host.clone(), token.clone()],
            "",
        );
        assert_eq!(status, 400, "{path}: {answer}");
        assert!(!answer.contains("password"));
    }
    assert_eq!(
        page.get("/api/sessions")["total"],
        3,
        "nothing was forgotten"
    );
    // Ctrl-C stops it, and nothing listens after.
    let port = page.port;
    assert!(page.stop().success());
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
}

#[test]
fn every_view_answers_with_the_projects_memory() {
    let p = committed_demo();
    let page = Page::serve(&p);
    let sessions = page.get("/api/sessions");
    assert_eq!(sessions["total"], 3);
    let first = &sessions["sessions"][0];
    assert_eq!(first["title"], "Flaky checkout test", "newest first");
    assert_eq!(first["agent"], "claude-code");
    let id = first["session_id"].as_str().unwrap();
    let session = page.get(&format!("/api/sessions/{id}"));
    assert!(session["items"].as_array().unwrap().len() > 2);
    let items = page.get("/api/items?type=convention");
    assert!(items["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["type"] == "convention"));
    let author = git(p.root(), &["log", "-1", "--format=%an"]);
    assert_eq!(items["authors"][0]["name"], author.trim());
    let item_id = items["items"][0]["id"].as_str().unwrap();
    let item = page.get(&format!("/api/items/{item_id}"));
    assert_eq!(item["blame"]["author"], author.trim());
    // The cited line in context: the item's own text on it.
    let context = &item["context"];
    let at = context["line"].as_u64().unwrap() - context["first"].as_u64().unwrap();
    let line = context["lines"][at as usize].as_str().unwrap();
    let words: String = item["row"]["text"]
        .as_str()
        .unwrap()
        .chars()
        .take(20)
        .collect();
    assert!(line.contains(&words), "{line} / {words}");
    let found = page.get("/api/search?q=why%20did%20we%20pick%20jose%20for%20JWT&mode=lexical");
    assert!(
        found["hits"][0]["text"].as_str().unwrap().contains("jose"),
        "{found}"
    );
    let next = page.get("/api/next");
    assert_eq!(next["sections"][0]["title"], "Where you left off");
    assert!(next["text"]
        .as_str()
        .unwrap()
        .contains("Flaky checkout test"));
    let review = page.get("/api/review");
    assert!(review["stale"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["item"]["id"] == "303ed6ef5993"));
    assert_eq!(
        page.get("/api/cost")["bill"]["days"]
            .as_array()
            .unwrap()
            .len(),
        30
    );
    let health = page.get("/api/health");
    assert_eq!(health["status"]["sessions"], 3);
    assert!(health["checks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["name"] == "index"));
}

/// Confirming a stale item and forgetting another from the page changes the
/// markdown byte for byte as `thehook review` does.
#[test]
fn review_from_the_page_writes_what_the_cli_writes() {
    let (by_page, by_cli) = (committed_demo(), committed_demo());
    let stale: Vec<String> = page_stale_ids(&by_cli);
    assert!(stale.len() >= 2, "the demo has stale items: {stale:?}");
    let page = Page::serve(&by_page);
    let confirmed = page.post("/api/review/confirm", json!({ "id": stale[0] }));
    assert_eq!(confirmed["done"], "confirmed");
    let forgot = page.post("/api/review/forget", json!({ "id": stale[1] }));
    assert_eq!(forgot["done"], "forgot");
    drop(page);
    by_cli.ok(&["review", "confirm", &stale[0]]);
    by_cli.ok(&["review", "forget", &stale[1]]);
    let relative = |p: &Project| -> Vec<(String, Vec<u8>)> {
        p.markdown_snapshot()
            .into_iter()
            .map(|(path, bytes)| {
                (
                    path.strip_prefix(p.root()).unwrap().display().to_string(),
                    bytes,
                )
            })
            .collect()
    };
    assert_eq!(relative(&by_page), relative(&by_cli));
    assert_ne!(
        relative(&by_page),
        relative(&committed_demo()),
        "something changed"
    );
}

fn page_stale_ids(p: &Project) -> Vec<String> {
    let review: Value = serde_json::from_str(&p.ok(&["review", "--json"])).unwrap();
    review["stale"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["item"]["id"].as_str().unwrap().to_string())
        .collect()
}
