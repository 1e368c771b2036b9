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
/// The first 19 keep their order (tests pick some by index); the rest follow.
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
    let mut all = vec![
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
    ];
    all.extend(prose());
    all.extend(command_lines());
    all.extend(config_files());
    all.extend(connection_strings());
    all.extend(private_keys());
    all.extend(vendor_tokens());
    all
}

// The samples below are built by `rnd`, not `r`: `r` steps through its
// alphabet with a fixed stride, so its values repeat with a short period and
// read as patterns to any check for randomness. Every value below has the
// length, prefix and alphabet of the real token it stands for (as gitleaks'
// rules describe them), so a detector that recognises the real format
// recognises these.

const HEX: &str = "0123456789abcdef";
const HEX_UPPER: &str = "0123456789ABCDEF";
const DIGITS: &str = "0123456789";
const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const LOWER_ALNUM: &str = "abcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const B62: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64URL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/// AWS access key ids: upper case and the digits 2 to 7.
const AWS_ID: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
/// Bech32, upper case: age secret keys.
const BECH32: &str = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";
/// Django's `get_random_secret_key()` alphabet.
const DJANGO: &str = "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)";
/// The last base64 character before `=` (two spare bits) or `==` (four).
const B64_BEFORE_PAD1: &str = "AEIMQUYcgkosw048";
const B64_BEFORE_PAD2: &str = "AQgw";

/// `n` characters of `alphabet`, drawn by `SplitMix64` from a state seeded
/// with the FNV-1a hash of `seed`: fixed for a seed, unrelated between seeds
/// (each sample has its own, so adding one changes no other), and without
/// the short period or skewed counts a randomness check would reject.
fn rnd(seed: &str, n: usize, alphabet: &str) -> String {
    let a: Vec<char> = alphabet.chars().collect();
    let mut state = seed.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            a[(z % a.len() as u64) as usize]
        })
        .collect()
}

/// A password of `n` letters and digits with a character of `symbols` a
/// third and two thirds of the way in (never first or last, where it would
/// read as punctuation around the value).
fn password(seed: &str, n: usize, symbols: &str) -> String {
    let mut p: Vec<char> = rnd(seed, n, B62).chars().collect();
    let s: Vec<char> = rnd(&format!("{seed}/symbols"), 2, symbols)
        .chars()
        .collect();
    p[n / 3] = s[0];
    p[2 * n / 3] = s[1];
    p.into_iter().collect()
}

/// A random (version 4) UUID, in lower-case hex.
fn uuid(seed: &str) -> String {
    let h = rnd(seed, 32, HEX);
    let variant = rnd(&format!("{seed}/variant"), 1, "89ab");
    format!(
        "{}-{}-4{}-{variant}{}-{}",
        &h[..8],
        &h[8..12],
        &h[13..16],
        &h[17..20],
        &h[20..]
    )
}

/// `n` random bytes encoded as base64 with its padding, the way a key of
/// `n` bytes is written (`AccountKey=`, `SharedAccessKey=`, `base64:`).
fn b64_key(seed: &str, n: usize) -> String {
    let chars = (n * 8).div_ceil(6);
    match n % 3 {
        1 => format!(
            "{}{}==",
            rnd(seed, chars - 1, B64),
            rnd(&format!("{seed}/last"), 1, B64_BEFORE_PAD2)
        ),
        2 => format!(
            "{}{}=",
            rnd(seed, chars - 1, B64),
            rnd(&format!("{seed}/last"), 1, B64_BEFORE_PAD1)
        ),
        _ => rnd(seed, chars, B64),
    }
}

/// Standard base64 with padding, for values that really are the base64 of
/// something (Basic auth, Docker's `auth`, Sentry's and Grafana's tokens).
fn b64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let byte = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let n = (byte(0) << 16) | (byte(1) << 8) | byte(2);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(A[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `body` between PEM's BEGIN and END lines, wrapped at `width` columns.
fn armor(label: &str, body: &str, width: usize) -> String {
    let chars: Vec<char> = body.chars().collect();
    let lines: Vec<String> = chars.chunks(width).map(|l| l.iter().collect()).collect();
    format!(
        "-----BEGIN {label}-----\n{}\n-----END {label}-----",
        lines.join("\n")
    )
}

/// The base64 of a 2048-bit RSA key in PKCS #8 (1217 bytes of DER): its
/// fixed header (`SEQUENCE`, version, rsaEncryption, `OCTET STRING`, the
/// modulus's tag and length), then random digits and the padding.
fn pkcs8_rsa_body(seed: &str) -> String {
    format!(
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ{}{}=",
        rnd(seed, 1572, B64),
        rnd(&format!("{seed}/last"), 1, B64_BEFORE_PAD1)
    )
}

/// Plain statements of a secret, the way one is typed into a chat.
fn prose() -> Vec<Sample> {
    let aws_key = rnd("aws-secret-key-prose", 40, B64);
    let aws_id = format!("AKIA{}", rnd("aws-secret-key-prose/id", 16, AWS_ID));
    let signing = rnd("signing-key-prose", 64, HEX);
    let token = rnd("token-prose", 48, B64URL);
    let db_pw = password("password-prose", 16, "!#%*@^_~");
    let root_pw = password("password-prose-quoted", 14, "!#%*@^_~");
    let webhook = rnd("webhook-secret", 32, B62);
    let twilio_sid = format!("AC{}", rnd("twilio-auth-token-prose/sid", 32, HEX));
    let twilio = rnd("twilio-auth-token-prose", 32, HEX);
    let openrouter = format!("sk-or-v1-{}", rnd("openrouter-key-prose", 64, HEX));
    vec![
        sample(
            "aws-secret-key-prose",
            format!("my AWS secret access key is {aws_key} and the key id is {aws_id}, region eu-west-1"),
            aws_key,
        ),
        sample(
            "signing-key-prose",
            format!("the signing key is {signing}, we rotate it after the demo"),
            signing,
        ),
        sample(
            "token-prose",
            format!("use this token: {token} (it expires Friday)"),
            token,
        ),
        sample(
            "password-prose",
            format!("password for the staging db is {db_pw} if you need to look at the rows"),
            db_pw,
        ),
        sample(
            "password-prose-quoted",
            format!("I set the root password to \"{root_pw}\" on the new box, change it later"),
            root_pw,
        ),
        sample(
            "webhook-secret-prose",
            format!("here's the webhook secret: {webhook}"),
            webhook,
        ),
        sample(
            "twilio-auth-token-prose",
            format!("Twilio account {twilio_sid} and the auth token is {twilio}"),
            twilio,
        ),
        sample(
            "openrouter-key-prose",
            format!("the OpenRouter key is {openrouter}, put it in the config"),
            openrouter,
        ),
    ]
}

/// Secrets on command lines: glued to a flag, after one, inside a URL.
fn command_lines() -> Vec<Sample> {
    let mysql = password("password-glued-flag", 14, "@%_.");
    let psql = password("psql-url", 18, "-._~");
    let dump = password("password-long-flag-quoted", 16, "!#$%&*");
    let mongo = password("password-long-flag-space", 20, "@%_.");
    let vercel = rnd("token-flag", 24, B62);
    let redis = rnd("redis-cli-a", 32, B62);
    let sshpass = password("sshpass-p", 12, "!#$%&*");
    let docker = password("docker-login-p", 20, "_.@");
    let curl_user = password("curl-basic-auth", 16, "@.");
    let sqlcmd = password("sqlcmd-P", 16, "!#$%&*");
    let bearer = rnd("curl-bearer-header", 64, B62);
    let api_key = rnd("curl-api-key-header", 32, HEX);
    let glpat = format!("glpat-{}", rnd("gitlab-token-in-clone-url", 20, B64URL));
    let pg_env = password("docker-run-env", 18, "_.");
    let literal = rnd("kubectl-api-key", 40, B62);
    let rails = rnd("rails-secret-key-base", 128, HEX);
    let hf = format!("hf_{}", rnd("huggingface-token", 34, LETTERS));
    let doctl = format!("dop_v1_{}", rnd("digitalocean-token", 64, HEX));
    let glrt = format!("glrt-{}", rnd("gitlab-runner-token", 20, B64URL));
    let anthropic = format!(
        "sk-ant-api03-{}AA",
        rnd("anthropic-key-env-prefix", 93, B64URL)
    );
    let openai = format!(
        "sk-proj-{}T3BlbkFJ{}",
        rnd("openai-key-export/a", 74, B64URL),
        rnd("openai-key-export/b", 74, B64URL)
    );
    vec![
        sample(
            "password-glued-flag",
            format!("mysql -u root -p{mysql} -h 127.0.0.1 shop"),
            mysql,
        ),
        sample(
            "psql-url",
            format!("psql \"postgresql://admin:{psql}@db.example.com:5432/prod?sslmode=require\""),
            psql,
        ),
        sample(
            "password-long-flag-quoted",
            format!("mysqldump --user=root --password='{dump}' shop > shop.sql"),
            dump,
        ),
        sample(
            "password-long-flag-space",
            format!("mongosh --host db.internal --username admin --password {mongo} --authenticationDatabase admin"),
            mongo,
        ),
        sample(
            "token-flag",
            format!("vercel deploy --prod --token {vercel}"),
            vercel,
        ),
        sample(
            "redis-cli-a",
            format!("redis-cli -h cache.internal -p 6379 -a {redis} --no-auth-warning ping"),
            redis,
        ),
        sample(
            "sshpass-p",
            format!("sshpass -p '{sshpass}' ssh -o StrictHostKeyChecking=no deploy@10.0.4.12"),
            sshpass,
        ),
        sample(
            "docker-login-p",
            format!("docker login -u ci-bot -p {docker} registry.example.com"),
            docker,
        ),
        sample(
            "curl-basic-auth",
            format!("curl -u admin:{curl_user} https://api.example.com/v1/health"),
            curl_user,
        ),
        sample(
            "sqlcmd-P",
            format!("sqlcmd -S tcp:sql.internal,1433 -U sa -P '{sqlcmd}' -Q \"SELECT @@VERSION\""),
            sqlcmd,
        ),
        sample(
            "curl-bearer-header",
            format!("curl -H \"Authorization: Bearer {bearer}\" https://api.example.com/v1/me"),
            bearer,
        ),
        sample(
            "curl-api-key-header",
            format!("curl https://api.example.com/v2/items -H 'X-API-Key: {api_key}'"),
            api_key,
        ),
        sample(
            "gitlab-token-in-clone-url",
            format!("git clone https://oauth2:{glpat}@gitlab.example.com/platform/infra.git"),
            glpat,
        ),
        sample(
            "docker-run-env",
            format!("docker run -d -e POSTGRES_PASSWORD={pg_env} -p 5432:5432 postgres:16"),
            pg_env,
        ),
        sample(
            "kubectl-from-literal",
            format!("kubectl create secret generic api-keys --from-literal=api-key={literal}"),
            literal,
        ),
        sample(
            "rails-secret-key-base",
            format!("heroku config:set SECRET_KEY_BASE={rails} -a acme-web"),
            rails,
        ),
        sample(
            "huggingface-token",
            format!("huggingface-cli login --token {hf}"),
            hf,
        ),
        sample(
            "digitalocean-token",
            format!("doctl auth init --access-token {doctl}"),
            doctl,
        ),
        sample(
            "gitlab-runner-token",
            format!("gitlab-runner register --url https://gitlab.com --token {glrt}"),
            glrt,
        ),
        sample(
            "anthropic-key-env-prefix",
            format!("ANTHROPIC_API_KEY={anthropic} npm run dev"),
            anthropic,
        ),
        sample(
            "openai-key-export",
            format!("export OPENAI_API_KEY={openai}"),
            openai,
        ),
    ]
}

/// Secrets in the files people paste: `.env`, YAML, JSON, TOML, INI, HCL,
/// code, URLs with credentials and query strings.
fn config_files() -> Vec<Sample> {
    let whsec = format!("whsec_{}", rnd("stripe-webhook-secret-env", 32, B62));
    let yaml_pw = password("yaml-password", 20, "%+-.=_");
    let s3_id = format!("AKIA{}", rnd("aws-secret-key-yaml/id", 16, AWS_ID));
    let s3_key = rnd("aws-secret-key-yaml", 40, B64);
    let json_key = rnd("json-api-key", 32, HEX);
    let cargo = format!("cio{}", rnd("crates-io-token-toml", 32, B62));
    let pypi = format!(
        "pypi-AgEIcHlwaS5vcmcCJ{}",
        rnd("pypi-token-pypirc", 156, B64URL)
    );
    let tf_pw = password("terraform-password", 24, "!#%*+-_");
    let kwarg = password("password-kwarg", 16, "!#%*@^_~");
    let client_secret = rnd("client-secret-js", 40, B64URL);
    let cred_id = format!(
        "AKIA{}",
        rnd("aws-secret-key-credentials-file/id", 16, AWS_ID)
    );
    let cred_key = rnd("aws-secret-key-credentials-file", 40, B64);
    let k8s = b64(password("kubernetes-secret-data", 20, "!#%*_").as_bytes());
    let docker_auth =
        b64(format!("ci-bot:ghp_{}", rnd("docker-config-auth/ghp", 36, B62)).as_bytes());
    let basic = b64(format!("deploy:{}", password("basic-auth-header", 18, "!#%*@_")).as_bytes());
    let netrc = password("netrc-password", 18, "!#%*@^_~");
    let django = rnd("django-secret-key", 50, DJANGO);
    let laravel = b64_key("laravel-app-key", 32);
    let jdbc = password("jdbc-password-param", 16, "-._~");
    let fb = format!("EAAC{}", rnd("facebook-access-token-query", 180, B62));
    let access_token = rnd("query-access-token", 40, B62);
    let api_key = rnd("query-api-key", 32, HEX);
    let mongo = password("url-mongodb-srv", 20, "-._~");
    let redis = rnd("url-redis", 32, B62);
    let amqp = password("url-amqp", 20, "-._~");
    let nexus = password("url-https-basic", 16, "-._~");
    vec![
        sample(
            "stripe-webhook-secret-env",
            format!("# .env.production\nNODE_ENV=production\nSTRIPE_WEBHOOK_SECRET={whsec}\nPORT=3000\n"),
            whsec,
        ),
        sample(
            "yaml-password",
            format!("database:\n  host: db.internal\n  port: 5432\n  username: app\n  password: {yaml_pw}\n"),
            yaml_pw,
        ),
        sample(
            "aws-secret-key-yaml",
            format!("storage:\n  s3:\n    bucket: acme-uploads\n    access_key_id: {s3_id}\n    secret_key: {s3_key}\n"),
            s3_key,
        ),
        sample(
            "json-api-key",
            format!("{{\"service\": \"geocoder\", \"apiKey\": \"{json_key}\", \"timeout\": 30}}"),
            json_key,
        ),
        sample(
            "crates-io-token-toml",
            format!("# ~/.cargo/credentials.toml\n[registry]\ntoken = \"{cargo}\"\n"),
            cargo,
        ),
        sample(
            "pypi-token-pypirc",
            format!("[pypi]\n  username = __token__\n  password = {pypi}\n"),
            pypi,
        ),
        sample(
            "terraform-password",
            format!("resource \"aws_db_instance\" \"main\" {{\n  username = \"app\"\n  password = \"{tf_pw}\"\n}}"),
            tf_pw,
        ),
        sample(
            "password-kwarg",
            format!("conn = psycopg2.connect(host=\"db.internal\", dbname=\"app\", user=\"app\", password=\"{kwarg}\")"),
            kwarg,
        ),
        sample(
            "client-secret-js",
            format!("const client = new AuthClient({{ clientId: \"web-app\", clientSecret: \"{client_secret}\" }});"),
            client_secret,
        ),
        sample(
            "aws-secret-key-credentials-file",
            format!("[default]\naws_access_key_id = {cred_id}\naws_secret_access_key = {cred_key}\nregion = us-east-1\n"),
            cred_key,
        ),
        sample(
            "kubernetes-secret-data",
            format!("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: {k8s}\n"),
            k8s,
        ),
        sample(
            "docker-config-auth",
            format!("{{\"auths\": {{\"ghcr.io\": {{\"auth\": \"{docker_auth}\"}}}}}}"),
            docker_auth,
        ),
        sample(
            "basic-auth-header",
            format!("Authorization: Basic {basic}"),
            basic,
        ),
        sample(
            "netrc-password",
            format!("machine api.example.com\n  login deploy\n  password {netrc}\n"),
            netrc,
        ),
        sample(
            "django-secret-key",
            format!("# settings.py\nSECRET_KEY = '{django}'\nDEBUG = False"),
            django,
        ),
        sample(
            "laravel-app-key",
            format!("APP_NAME=Shop\nAPP_KEY=base64:{laravel}\nAPP_DEBUG=false"),
            laravel,
        ),
        sample(
            "jdbc-password-param",
            format!("spring.datasource.url=jdbc:mysql://db:3306/app?user=app&password={jdbc}&useSSL=true"),
            jdbc,
        ),
        sample(
            "facebook-access-token-query",
            format!("GET https://graph.facebook.com/v19.0/me/accounts?access_token={fb}"),
            fb,
        ),
        sample(
            "query-access-token",
            format!("https://api.example.com/v2/export?format=csv&access_token={access_token}"),
            access_token,
        ),
        sample(
            "query-api-key",
            format!("https://api.example.com/search?q=rust&api_key={api_key}&page=2"),
            api_key,
        ),
        sample(
            "url-mongodb-srv",
            format!("MONGO_URI=mongodb+srv://app:{mongo}@cluster0.x7k2p.mongodb.net/prod?retryWrites=true&w=majority"),
            mongo,
        ),
        sample(
            "url-redis",
            format!("REDIS_URL=redis://default:{redis}@redis-14421.c12.us-east-1-4.ec2.cloud.redislabs.com:14421"),
            redis,
        ),
        sample(
            "url-amqp",
            format!("broker_url = \"amqps://worker:{amqp}@rabbit.internal:5671/jobs\""),
            amqp,
        ),
        sample(
            "url-https-basic",
            format!("npm config set registry https://deploy:{nexus}@nexus.example.com/repository/npm/"),
            nexus,
        ),
    ]
}

/// Connection strings: `Key=value;` pairs with the secret among them.
fn connection_strings() -> Vec<Sample> {
    let account_key = b64_key("azure-storage-connection-string", 64);
    let sql = password("azure-sql-connection-string", 20, "!#%*@^");
    let bus = b64_key("azure-service-bus-connection-string", 32);
    vec![
        sample(
            "azure-storage-connection-string",
            format!("DefaultEndpointsProtocol=https;AccountName=stprodlogs;AccountKey={account_key};EndpointSuffix=core.windows.net"),
            account_key,
        ),
        sample(
            "azure-sql-connection-string",
            format!("Server=tcp:acme-sql.database.windows.net,1433;Initial Catalog=app;Persist Security Info=False;User ID=appadmin;Password={sql};MultipleActiveResultSets=False;Encrypt=True;"),
            sql,
        ),
        sample(
            "azure-service-bus-connection-string",
            format!("Endpoint=sb://acme-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={bus}"),
            bus,
        ),
    ]
}

/// Private keys in their armour: each block is the secret, whole.
fn private_keys() -> Vec<Sample> {
    // P-256 in SEC 1 (121 bytes): version, the 32-byte key, the curve's
    // OID and the public point, whose fixed parts are kept.
    let ec = armor(
        "EC PRIVATE KEY",
        &format!(
            "MHcCAQEEI{}oAoGCCqGSM49AwEHoUQDQgAE{}{}==",
            rnd("ec-private-key/d", 43, B64),
            rnd("ec-private-key/q", 85, B64),
            rnd("ec-private-key/last", 1, B64_BEFORE_PAD2)
        ),
        64,
    );
    // ed25519 in OpenSSH's format (242 bytes): magic, cipher and KDF
    // "none", one key of type ssh-ed25519, then the key itself.
    let openssh = armor(
        "OPENSSH PRIVATE KEY",
        &format!(
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAAC{}{}=",
            rnd("openssh-private-key", 240, B64),
            rnd("openssh-private-key/last", 1, B64_BEFORE_PAD1)
        ),
        70,
    );
    // An ed25519 secret-key packet (version 4, EdDSA, the curve's OID),
    // then the rest of the key; the armour's blank line and CRC-24 line.
    let pgp_body: Vec<char> = format!(
        "lFgEZaGywxYJKwYBBAHaRw8BAQdA{}",
        rnd("pgp-private-key", 332, B64)
    )
    .chars()
    .collect();
    let pgp_lines: Vec<String> = pgp_body.chunks(64).map(|l| l.iter().collect()).collect();
    let pgp = format!(
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{}\n={}\n-----END PGP PRIVATE KEY BLOCK-----",
        pgp_lines.join("\n"),
        rnd("pgp-private-key/crc", 4, B64)
    );
    let pkcs8 = armor("PRIVATE KEY", &pkcs8_rsa_body("pkcs8-private-key"), 64);
    // A service account's JSON key: the PEM inside a JSON string, its line
    // breaks written as `\n`.
    let gcp_key = armor(
        "PRIVATE KEY",
        &pkcs8_rsa_body("gcp-service-account-json"),
        64,
    )
    .replace('\n', "\\n");
    let gcp_key_id = rnd("gcp-service-account-json/id", 40, HEX);
    let gcp_client = rnd("gcp-service-account-json/client", 20, DIGITS);
    vec![
        sample("ec-private-key", format!("here is the key:\n{ec}\n"), ec),
        sample(
            "openssh-private-key",
            format!("cat ~/.ssh/id_ed25519\n{openssh}\n"),
            openssh,
        ),
        sample(
            "pgp-private-key",
            format!("gpg --export-secret-keys --armor ops@example.com\n{pgp}\n"),
            pgp,
        ),
        sample(
            "pkcs8-private-key",
            format!("# tls/server.key\n{pkcs8}\n"),
            pkcs8,
        ),
        sample(
            "gcp-service-account-json",
            format!(
                "{{\n  \"type\": \"service_account\",\n  \"project_id\": \"acme-prod\",\n  \"private_key_id\": \"{gcp_key_id}\",\n  \"private_key\": \"{gcp_key}\\n\",\n  \"client_email\": \"deployer@acme-prod.iam.gserviceaccount.com\",\n  \"client_id\": \"1{gcp_client}\"\n}}"
            ),
            gcp_key,
        ),
    ]
}

/// Vendors' tokens, each in the shape gitleaks' rule for it expects, and
/// where that rule needs a keyword nearby (`mailgun`, `datadog`, ...), with it.
fn vendor_tokens() -> Vec<Sample> {
    let sendgrid = format!(
        "SG.{}.{}",
        rnd("sendgrid/id", 22, B64URL),
        rnd("sendgrid/secret", 43, B64URL)
    );
    let mailgun = format!("key-{}", rnd("mailgun", 32, HEX));
    let mailgun_signing = format!(
        "{}-{}-{}",
        rnd("mailgun-signing-key/a", 32, HEX),
        rnd("mailgun-signing-key/b", 8, HEX),
        rnd("mailgun-signing-key/c", 8, HEX)
    );
    let mailchimp = format!("{}-us21", rnd("mailchimp", 32, HEX));
    let postmark = uuid("postmark-server-token");
    let hvs = format!("hvs.CAESI{}", rnd("vault-service-token", 86, B64URL));
    let hvb = format!("hvb.AAAAAQ{}", rnd("vault-batch-token", 140, B64URL));
    let telegram = format!(
        "7{}:AA{}",
        rnd("telegram-bot-token/id", 9, DIGITS),
        rnd("telegram-bot-token", 33, B64URL)
    );
    let discord_id = format!("1{}", rnd("discord-bot-token/id", 18, DIGITS));
    let discord = format!(
        "{}.{}.{}",
        b64(discord_id.as_bytes()).trim_end_matches('='),
        rnd("discord-bot-token/ts", 6, B64URL),
        rnd("discord-bot-token/hmac", 38, B64URL)
    );
    let discord_hook = rnd("discord-webhook", 68, B64URL);
    let discord_hook_id = format!("1{}", rnd("discord-webhook/id", 18, DIGITS));
    let twilio = format!("SK{}", rnd("twilio-api-key", 32, HEX));
    let xapp = format!(
        "xapp-1-A{}-{}-{}",
        rnd("slack-app-token/app", 10, UPPER_ALNUM),
        rnd("slack-app-token/id", 13, DIGITS),
        rnd("slack-app-token", 64, HEX)
    );
    let xoxp = format!(
        "xoxp-{}-{}-{}-{}",
        rnd("slack-user-token/a", 10, DIGITS),
        rnd("slack-user-token/b", 13, DIGITS),
        rnd("slack-user-token/c", 13, DIGITS),
        rnd("slack-user-token", 32, HEX)
    );
    let shopify = format!("shpat_{}", rnd("shopify-access-token", 32, HEX));
    let databricks = format!("dapi{}", rnd("databricks-token", 32, HEX));
    let doppler = format!("dp.pt.{}", rnd("doppler-token", 43, B62));
    let heroku = format!("HRKU-AA{}", rnd("heroku-api-key", 58, B64URL));
    let heroku_legacy = uuid("heroku-api-key-legacy");
    let linear = format!("lin_api_{}", rnd("linear-api-key", 40, B62));
    let notion = format!(
        "ntn_{}{}",
        rnd("notion-token/digits", 11, DIGITS),
        rnd("notion-token", 35, B62)
    );
    let notion_legacy = format!("secret_{}", rnd("notion-token-legacy", 43, B62));
    // Atlassian API tokens end in `=` and an 8-digit hex checksum.
    let atlassian = format!(
        "ATATT3xFfGF0{}={}",
        rnd("atlassian-api-token", 171, B64URL),
        rnd("atlassian-api-token/crc", 8, HEX_UPPER)
    );
    let sentry_payload = format!(
        "{{\"iat\":1718000000.{},\"url\":\"https://sentry.io\",\"region_url\":\"https://us.sentry.io\",\"org\":\"acme\"}}",
        rnd("sentry-org-token/iat", 6, DIGITS)
    );
    let sentry_org = format!(
        "sntrys_{}_{}",
        b64(sentry_payload.as_bytes()),
        rnd("sentry-org-token", 43, B64)
    );
    let sentry_user = format!("sntryu_{}", rnd("sentry-user-token", 64, HEX));
    let glsa = format!(
        "glsa_{}_{}",
        rnd("grafana-service-account-token", 32, B62),
        rnd("grafana-service-account-token/crc", 8, HEX)
    );
    let glc_payload = format!(
        "{{\"o\":\"9{}\",\"n\":\"stack-812345-hm-write-ci\",\"k\":\"{}\",\"m\":{{\"r\":\"prod-us-east-0\"}}}}",
        rnd("grafana-cloud-token/org", 5, DIGITS),
        rnd("grafana-cloud-token", 24, B62)
    );
    let glc = format!("glc_{}", b64(glc_payload.as_bytes()));
    let newrelic = format!("NRAK-{}", rnd("new-relic-user-key", 27, UPPER_ALNUM));
    let dd_api = rnd("datadog-api-key", 32, HEX);
    let dd_app = rnd("datadog-app-key", 40, HEX);
    let fastly = rnd("fastly-api-token", 32, B64URL);
    let cloudflare = rnd("cloudflare-api-token", 40, B64URL);
    let cloudflare_global = rnd("cloudflare-global-api-key", 37, HEX);
    let algolia = rnd("algolia-admin-key", 32, HEX);
    let okta = format!("00{}", rnd("okta-api-token", 40, B64URL));
    let postman = format!(
        "PMAK-{}-{}",
        rnd("postman-api-key/id", 24, HEX),
        rnd("postman-api-key", 34, HEX)
    );
    let github_fine = format!(
        "github_pat_{}_{}",
        rnd("github-fine-grained-pat/id", 22, B62),
        rnd("github-fine-grained-pat", 59, B62)
    );
    let gho = format!("gho_{}", rnd("github-oauth-token", 36, B62));
    let ghs = format!("ghs_{}", rnd("github-app-token", 36, B62));
    let age = format!("AGE-SECRET-KEY-1{}", rnd("age-secret-key", 58, BECH32));
    let stripe_rk = format!("rk_live_51{}", rnd("stripe-restricted-key", 97, B62));
    let square = format!("EAAA{}", rnd("square-access-token", 60, B64URL));
    let twitch = rnd("twitch-oauth-token", 30, LOWER_ALNUM);
    let dropbox = format!("sl.{}", rnd("dropbox-access-token", 135, B64URL));
    let asana = rnd("asana-client-secret", 32, LOWER_ALNUM);
    let azure_ad = format!(
        "{}{}Q~{}",
        rnd("azure-ad-client-secret/a", 3, B62),
        rnd("azure-ad-client-secret/n", 1, DIGITS),
        rnd(
            "azure-ad-client-secret",
            34,
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_~.-"
        )
    );
    let brevo = format!(
        "xkeysib-{}-{}",
        rnd("brevo-api-key", 64, HEX),
        rnd("brevo-api-key/suffix", 16, B62)
    );
    let pscale = format!("pscale_pw_{}", rnd("planetscale-password", 43, B64URL));
    let rubygems = format!("rubygems_{}", rnd("rubygems-api-key", 48, HEX));
    let pulumi = format!("pul-{}", rnd("pulumi-access-token", 40, HEX));
    let pplx = format!("pplx-{}", rnd("perplexity-api-key", 48, B62));
    let teams = format!(
        "https://acme.webhook.office.com/webhookb2/{}@{}/IncomingWebhook/{}/{}",
        uuid("teams-webhook/group"),
        uuid("teams-webhook/tenant"),
        rnd("teams-webhook", 32, HEX),
        uuid("teams-webhook/connector")
    );
    let gocspx = format!("GOCSPX-{}", rnd("google-oauth-client-secret", 28, B64URL));
    let session = format!("IQoJb3JpZ2luX2Vj{}", rnd("aws-session-token", 700, B64));
    vec![
        sample(
            "sendgrid",
            format!("SENDGRID_API_KEY={sendgrid}"),
            sendgrid,
        ),
        sample("mailgun", format!("MAILGUN_API_KEY={mailgun}"), mailgun),
        sample(
            "mailgun-signing-key",
            format!("MAILGUN_SIGNING_KEY={mailgun_signing}"),
            mailgun_signing,
        ),
        sample(
            "mailchimp",
            format!("MAILCHIMP_API_KEY={mailchimp}"),
            mailchimp,
        ),
        sample(
            "postmark-server-token",
            format!("curl https://api.postmarkapp.com/email -H \"X-Postmark-Server-Token: {postmark}\" -d @mail.json"),
            postmark,
        ),
        sample(
            "vault-service-token",
            format!("VAULT_ADDR=https://vault.internal:8200 VAULT_TOKEN={hvs} vault kv get secret/app"),
            hvs,
        ),
        sample(
            "vault-batch-token",
            format!("vault token lookup {hvb}"),
            hvb,
        ),
        sample(
            "telegram-bot-token",
            format!("TELEGRAM_BOT_TOKEN={telegram}"),
            telegram,
        ),
        sample(
            "discord-bot-token",
            format!("DISCORD_TOKEN={discord}"),
            discord,
        ),
        sample(
            "discord-webhook",
            format!("POST https://discord.com/api/webhooks/{discord_hook_id}/{discord_hook}"),
            discord_hook,
        ),
        sample("twilio-api-key", format!("TWILIO_API_KEY={twilio}"), twilio),
        sample("slack-app-token", format!("SLACK_APP_TOKEN={xapp}"), xapp),
        sample(
            "slack-user-token",
            format!("the user token is {xoxp}, the bot one is in 1Password"),
            xoxp,
        ),
        sample(
            "shopify-access-token",
            format!("curl -H 'X-Shopify-Access-Token: {shopify}' https://acme.myshopify.com/admin/api/2024-01/shop.json"),
            shopify,
        ),
        sample(
            "databricks-token",
            format!("DATABRICKS_HOST=https://adb-1234567890123456.7.azuredatabricks.net\nDATABRICKS_TOKEN={databricks}"),
            databricks,
        ),
        sample(
            "doppler-token",
            format!("DOPPLER_TOKEN={doppler} doppler run -- npm start"),
            doppler,
        ),
        sample("heroku-api-key", format!("HEROKU_API_KEY={heroku}"), heroku),
        sample(
            "heroku-api-key-legacy",
            format!("HEROKU_API_KEY={heroku_legacy}"),
            heroku_legacy,
        ),
        sample("linear-api-key", format!("LINEAR_API_KEY={linear}"), linear),
        sample(
            "notion-token",
            format!("NOTION_TOKEN={notion}"),
            notion,
        ),
        sample(
            "notion-token-legacy",
            format!("const notion = new Client({{ auth: \"{notion_legacy}\" }});"),
            notion_legacy,
        ),
        sample(
            "atlassian-api-token",
            format!("JIRA_API_TOKEN={atlassian}"),
            atlassian,
        ),
        sample(
            "sentry-org-token",
            format!("# .sentryclirc\n[auth]\ntoken={sentry_org}\n"),
            sentry_org,
        ),
        sample(
            "sentry-user-token",
            format!("SENTRY_AUTH_TOKEN={sentry_user}"),
            sentry_user,
        ),
        sample(
            "grafana-service-account-token",
            format!("curl -H \"Authorization: Bearer {glsa}\" https://grafana.example.com/api/dashboards/home"),
            glsa,
        ),
        sample(
            "grafana-cloud-token",
            format!("GRAFANA_CLOUD_TOKEN={glc}"),
            glc,
        ),
        sample(
            "new-relic-user-key",
            format!("NEW_RELIC_API_KEY={newrelic}"),
            newrelic,
        ),
        sample("datadog-api-key", format!("DD_API_KEY={dd_api}"), dd_api),
        sample("datadog-app-key", format!("DATADOG_APP_KEY={dd_app}"), dd_app),
        sample(
            "fastly-api-token",
            format!("FASTLY_API_TOKEN={fastly}"),
            fastly,
        ),
        sample(
            "cloudflare-api-token",
            format!("CLOUDFLARE_API_TOKEN={cloudflare}"),
            cloudflare,
        ),
        sample(
            "cloudflare-global-api-key",
            format!("CLOUDFLARE_EMAIL=ops@example.com\nCLOUDFLARE_API_KEY={cloudflare_global}"),
            cloudflare_global,
        ),
        sample(
            "algolia-admin-key",
            format!("ALGOLIA_APP_ID=H7K2P9QX4L\nALGOLIA_ADMIN_KEY={algolia}"),
            algolia,
        ),
        sample("okta-api-token", format!("OKTA_API_TOKEN={okta}"), okta),
        sample(
            "postman-api-key",
            format!("curl https://api.getpostman.com/collections -H 'X-Api-Key: {postman}'"),
            postman,
        ),
        sample(
            "github-fine-grained-pat",
            format!("GITHUB_TOKEN={github_fine}"),
            github_fine,
        ),
        sample(
            "github-oauth-token",
            format!("`gh auth token` prints {gho}, is that the one with repo scope?"),
            gho,
        ),
        sample(
            "github-app-token",
            format!("git remote set-url origin https://x-access-token:{ghs}@github.com/acme/api.git"),
            ghs,
        ),
        sample(
            "age-secret-key",
            format!("# created: 2024-06-10T09:12:44Z\n# public key: age1{}\n{age}\n", rnd("age-secret-key/public", 58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l")),
            age,
        ),
        sample(
            "stripe-restricted-key",
            format!("STRIPE_RESTRICTED_KEY={stripe_rk}"),
            stripe_rk,
        ),
        sample(
            "square-access-token",
            format!("SQUARE_ACCESS_TOKEN={square}"),
            square,
        ),
        sample(
            "twitch-oauth-token",
            format!("TWITCH_OAUTH_TOKEN={twitch}"),
            twitch,
        ),
        sample(
            "dropbox-access-token",
            format!("DROPBOX_ACCESS_TOKEN={dropbox}"),
            dropbox,
        ),
        sample(
            "asana-client-secret",
            format!("ASANA_CLIENT_SECRET={asana}"),
            asana,
        ),
        sample(
            "azure-ad-client-secret",
            format!("AZURE_CLIENT_SECRET={azure_ad}"),
            azure_ad,
        ),
        sample("brevo-api-key", format!("BREVO_API_KEY={brevo}"), brevo),
        sample(
            "planetscale-password",
            format!("DATABASE_HOST=aws.connect.psdb.cloud\nDATABASE_PASSWORD={pscale}"),
            pscale,
        ),
        sample(
            "rubygems-api-key",
            format!("GEM_HOST_API_KEY={rubygems} gem push acme-1.2.0.gem"),
            rubygems,
        ),
        sample(
            "pulumi-access-token",
            format!("PULUMI_ACCESS_TOKEN={pulumi}"),
            pulumi,
        ),
        sample(
            "perplexity-api-key",
            format!("PERPLEXITY_API_KEY={pplx}"),
            pplx,
        ),
        sample("teams-webhook", format!("POST {teams}"), teams),
        sample(
            "google-oauth-client-secret",
            format!("{{\"web\": {{\"client_id\": \"81234567890-abc.apps.googleusercontent.com\", \"client_secret\": \"{gocspx}\"}}}}"),
            gocspx,
        ),
        sample(
            "aws-session-token",
            format!("aws_session_token = {session}"),
            session,
        ),
    ]
}

/// Ordinary text that must come out unchanged: hashes, ids, digests,
/// lockfile lines and words like "key", "token" and "password" with no
/// secret after them. Much of it is long, hex or base64, so a detector that
/// only measures randomness would take it for a secret. Literal, since none
/// of it is secret.
pub fn ordinary() -> Vec<&'static str> {
    vec![
        // git
        "fixed in commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904, see the PR for the rest",
        "9fceb02 Fix off-by-one in the pager (#412)",
        "commit 1a410efbd13591db07496601ebc7a059dd55cfe9 (HEAD -> main, origin/main)",
        "Author: Jane Doe <jane@example.com>",
        "git diff 4b825dc..9fceb02 -- src/",
        ".git/objects/4b/825dc642cb6eb9a060e54bf8d69288fbee4904",
        // ids
        "request 3f2504e0-4f89-41d3-9a0c-0305e82c3301 took 231 ms",
        "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7",
        "x-request-id: 0d8f3c2a-6b1e-4f5a-9c7d-2e4b8a1f6c3d",
        "arn:aws:iam::123456789012:role/ci-deploy",
        // lockfiles and package managers
        r#""integrity": "sha512-3+8S0MTa5tO3uHhx2fZbF5nQ8Vq4cR7w0kq0h0gqv9U1vZq7uMZJ6t0S2+fJ4kHqgT7tW0bqBq1yX8lI2mY5Tg==","#,
        r#"checksum = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855""#,
        r#"  resolved "https://registry.yarnpkg.com/debug/-/debug-4.3.4.tgz#1319f6579357f2338d3337d2cdd4914bb5dcc865""#,
        r#"source = "git+https://github.com/acme/lib?rev=4b825dc6#4b825dc642cb6eb9a060e54bf8d69288fbee4904""#,
        "requests==2.31.0 --hash=sha256:58cd2187c01e70e6e26505bca751777aa9f2ee0b7f4300988b709f44e013003f",
        "npm notice shasum: 6d2b4c1a9f0e8d7c6b5a4f3e2d1c0b9a8f7e6d5c",
        "https://registry.npmjs.org/react-dom/-/react-dom-18.2.0.tgz",
        "github.com/acme/retry v0.0.0-20240312153045-a1b2c3d4e5f6 // indirect",
        "version 1.4.2+build.20240312.sha.5114f85",
        // images, digests, build output
        "FROM node:20-alpine@sha256:2d07db07a2df6830718ae2a47db6fedce6745f5bcd174c398f2acdda90a11c03",
        "Digest: sha256:9b2a3e8c0f1d4e5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c",
        "sha256 of the tarball is 8d5e957f297893d26a2f5c8e2f5e4a9d6d7c3b1a0e9f8d7c6b5a4f3e2d1c0b9a",
        "d41d8cd98f00b204e9800998ecf8427e  empty.txt",
        r#"ETag: "33a64df551425fcc55e4d42a148795d9f25f89d4""#,
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAGklEQVR4nGNgGAWjYBSMglEwCkbBKBgFAwEAAAT4AAE0yEKgAAAAAElFTkSuQmCC",
        "dist/assets/main.3f9a8c1b2d4e5f60.js   212.4 kB │ gzip: 68.1 kB",
        "//# sourceMappingURL=main.3f9a8c1b.js.map",
        "target/debug/deps/libserde_json-3c5e8f2a9b1d4e70.rlib",
        "api-7d9f8b6c5d-x2k4p          1/1     Running   0          3h12m",
        r#"<div class="flex items-center justify-between gap-4 rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm hover:bg-slate-50 dark:border-slate-700 dark:bg-slate-900">"#,
        // public keys and fingerprints are not secret
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ci@example.com",
        "The key fingerprint is SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s ci@example.com",
        // the words, with no secret after them
        "the key is `user_id`, not `id`, so the join keeps one row per user",
        "token count 18234 (input) + 912 (output)",
        "max_tokens: 4096",
        "Authorization: Bearer $TOKEN",
        "password: ${{ secrets.DB_PASSWORD }}",
        "The access key id is shown once in the console; store it in Vault.",
        "Set `api_key` in config.toml, or export API_KEY before running.",
        "The password must be at least 12 characters long.",
        "Your identification has been saved in /home/dev/.ssh/id_ed25519",
    ]
}
