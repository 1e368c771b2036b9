//! Who may talk to the page's server. It listens on 127.0.0.1 only, but a
//! web page in the same browser can still send requests there, and a
//! rebound DNS name can make them same-origin. So every request must:
//! - name this server as its Host (`127.0.0.1:<port>` or `localhost:<port>`),
//!   which a rebound name cannot;
//! - come from this page if it says where it comes from (Origin,
//!   `Sec-Fetch-Site`), which a cross-site request always does;
//! - carry the token the server printed: in the `X-Thehook-Token` header,
//!   or for a page or asset the browser loads by itself, `?token=`. A change
//!   (a POST) takes the header only, and must say its Origin.

use axum::http::{HeaderMap, Method};

/// The header the page sends the token in.
pub(crate) const TOKEN_HEADER: &str = "x-thehook-token";

/// Why a request is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    Host,
    Origin,
    Token,
}

impl Refusal {
    pub(crate) fn message(self) -> &'static str {
        match self {
            Refusal::Host => "refused: the Host header does not name this server (127.0.0.1 or localhost and its port)",
            Refusal::Origin => "refused: the request comes from another site",
            Refusal::Token => "refused: no valid token; open the URL `thehook ui` printed",
        }
    }
}

/// The server's port and token.
#[derive(Debug, Clone)]
pub(crate) struct Guard {
    port: u16,
    token: String,
}

impl Guard {
    pub(crate) fn new(port: u16, token: String) -> Guard {
        Guard { port, token }
    }

    pub(crate) fn token(&self) -> &str {
        &self.token
    }

    /// Whether a request may be answered; `query_token` is its `?token=`.
    pub(crate) fn check(
        &self,
        method: &Method,
        headers: &HeaderMap,
        query_token: Option<&str>,
    ) -> Result<(), Refusal> {
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let hosts = [
            format!("127.0.0.1:{}", self.port),
            format!("localhost:{}", self.port),
        ];
        if !header("host").is_some_and(|h| hosts.iter().any(|ok| ok.eq_ignore_ascii_case(h))) {
            return Err(Refusal::Host);
        }
        let changes = method != Method::GET && method != Method::HEAD;
        match header("origin") {
            Some(origin) => {
                let ours = hosts
                    .iter()
                    .any(|h| origin.eq_ignore_ascii_case(&format!("http://{h}")));
                if !ours {
                    return Err(Refusal::Origin);
                }
            }
            None if changes => return Err(Refusal::Origin),
            None => {}
        }
        if header("sec-fetch-site").is_some_and(|s| s != "same-origin" && s != "none") {
            return Err(Refusal::Origin);
        }
        let given = match (header(TOKEN_HEADER), changes) {
            (Some(t), _) => Some(t),
            (None, false) => query_token,
            (None, true) => None,
        };
        if !given.is_some_and(|t| same(t.as_bytes(), self.token.as_bytes())) {
            return Err(Refusal::Token);
        }
        Ok(())
    }
}

/// Equal in time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// 32 hex digits from the OS's random source.
pub(crate) fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "0123456789abcdef0123456789abcdef";

    fn request(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (k, v) in pairs {
            headers.insert(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        headers
    }

    #[test]
    fn only_this_pages_requests_with_the_token_pass() {
        let guard = Guard::new(4000, TOKEN.into());
        let get = |h: &[(&str, &str)], q| guard.check(&Method::GET, &request(h), q);
        let host = ("host", "127.0.0.1:4000");
        assert_eq!(get(&[host], Some(TOKEN)), Ok(()));
        assert_eq!(
            get(&[("host", "localhost:4000"), (TOKEN_HEADER, TOKEN)], None),
            Ok(())
        );
        assert_eq!(get(&[host], None), Err(Refusal::Token));
        assert_eq!(
            get(&[host], Some("0123456789abcdef0123456789abcdee")),
            Err(Refusal::Token)
        );
        // A rebound DNS name, another port, no Host at all.
        assert_eq!(
            get(&[("host", "evil.example:4000")], Some(TOKEN)),
            Err(Refusal::Host)
        );
        assert_eq!(
            get(&[("host", "127.0.0.1:4001")], Some(TOKEN)),
            Err(Refusal::Host)
        );
        assert_eq!(get(&[], Some(TOKEN)), Err(Refusal::Host));
        // Another site's page, even with the token.
        let foreign = [
            host,
            ("origin", "http://evil.example"),
            (TOKEN_HEADER, TOKEN),
        ];
        assert_eq!(get(&foreign, None), Err(Refusal::Origin));
        let cross = [
            host,
            ("sec-fetch-site", "cross-site"),
            (TOKEN_HEADER, TOKEN),
        ];
        assert_eq!(get(&cross, None), Err(Refusal::Origin));
    }

    #[test]
    fn a_change_needs_the_header_and_this_origin() {
        let guard = Guard::new(4000, TOKEN.into());
        let post = |h: &[(&str, &str)], q| guard.check(&Method::POST, &request(h), q);
        let host = ("host", "127.0.0.1:4000");
        let origin = ("origin", "http://127.0.0.1:4000");
        assert_eq!(post(&[host, origin, (TOKEN_HEADER, TOKEN)], None), Ok(()));
        assert_eq!(
            post(&[host, origin], Some(TOKEN)),
            Err(Refusal::Token),
            "not in the URL"
        );
        assert_eq!(
            post(&[host, (TOKEN_HEADER, TOKEN)], None),
            Err(Refusal::Origin)
        );
    }

    #[test]
    fn tokens_are_random_hex() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_ne!(a, b);
        assert!(a.len() == 32 && a.bytes().all(|c| c.is_ascii_hexdigit()));
    }
}
