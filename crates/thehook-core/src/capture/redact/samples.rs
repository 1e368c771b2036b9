//! Synthetic secrets of every kind the redactor must catch, for tests here
//! and in the CLI's end-to-end tests (planted into real transcripts), which
//! include this file by path: it is test data, not part of the library.
#![allow(unreachable_pub, dead_code)]

/// One planted secret: the text it sits in and the part that must not survive.
#[derive(Debug, Clone)]
pub struct Sample {
    pub kind: &'static str,
    pub text: String,
    pub secret: String,
}

fn sample(kind: &'static str, text: String, secret: String) -> Sample {
    Sample { kind, text, secret }
}

/// Every sample. Built at run time from fixed alphabets, so no scanner
/// mistakes the source for a leak and every run plants the same values.
pub fn samples() -> Vec<Sample> {
    let r = |n: usize, alphabet: &str| -> String {
        let a: Vec<char> = alphabet.chars().collect();
        (0..n).map(|i| a[(i * 7 + n) % a.len()]).collect()
    };
    let alnum = "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY";
    let upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let b64url = "aB3_dE5-fG7hJ9kL2mN4pQ6rS8tU0vW1xY";
    let aws = format!("AKIA{}", r(16, upper));
    let gh = format!("ghp_{}", r(36, alnum));
    let ghpat = format!("github_pat_{}", r(60, alnum));
    let gl = format!("glpat-{}", r(20, alnum));
    let ant = format!("sk-ant-api03-{}", r(90, b64url));
    let oai = format!("sk-proj-{}", r(120, b64url));
    let slack = format!("xoxb-1234567890-1234567890123-{}", r(24, alnum));
    let hook = format!(
        "https://hooks.slack.com/services/T0{}/B0{}/{}",
        r(8, upper),
        r(8, upper),
        r(24, alnum)
    );
    let stripe = format!("sk_live_{}", r(24, alnum));
    let google = format!("AIza{}", r(35, b64url));
    let npm = format!("npm_{}", r(36, alnum));
    let jwt = format!(
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.{}",
        r(43, b64url)
    );
    let pem = format!(
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow{}\n{}\n-----END RSA PRIVATE KEY-----",
        r(58, alnum),
        r(64, alnum)
    );
    let url_pw = format!("Pw{}", r(14, alnum));
    let conn_pw = format!("Cx{}", r(12, alnum));
    let env_secret = r(32, alnum);
    let env_pw = "hunter2-correct-horse".to_string();
    let json_token = r(40, alnum);
    let bearer = r(48, b64url);
    vec![
        sample("aws-access-key", format!("aws_access_key_id = {aws}"), aws),
        sample(
            "github-token",
            format!("git push https://x:{gh}@github.com/o/r"),
            gh,
        ),
        sample("github-token", format!("export GH={ghpat}"), ghpat),
        sample("gitlab-token", format!("curl -H 'PRIVATE-TOKEN: {gl}'"), gl),
        sample("anthropic-key", format!("ANTHROPIC={ant}"), ant),
        sample(
            "openai-key",
            format!("client = OpenAI(api_key=\"{oai}\")"),
            oai,
        ),
        sample("slack-token", format!("slack token {slack} works"), slack),
        sample("slack-webhook", format!("POST {hook}"), hook),
        sample("stripe-key", format!("Stripe::api_key = {stripe}"), stripe),
        sample("google-api-key", format!("?key={google}&q=x"), google),
        sample(
            "npm-token",
            format!("//registry.npmjs.org/:_authToken={npm}"),
            npm,
        ),
        sample("jwt", format!("Cookie: session={jwt}"), jwt),
        sample("private-key", format!("key file:\n{pem}\nend"), pem),
        sample(
            "url-password",
            format!("DATABASE_URL=postgres://app:{url_pw}@db:5432/app"),
            url_pw,
        ),
        sample(
            "password",
            format!("Server=db;User Id=sa;Password={conn_pw};"),
            conn_pw,
        ),
        sample("secret", format!("JWT_SECRET={env_secret}"), env_secret),
        sample("password", format!("DB_PASSWORD='{env_pw}'"), env_pw),
        sample(
            "token",
            format!("{{\"refresh_token\": \"{json_token}\"}}"),
            json_token,
        ),
        sample("token", format!("Authorization: Bearer {bearer}"), bearer),
    ]
}
