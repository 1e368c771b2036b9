//! Reading JSONL that real agents wrote: CRLF line ends, bytes that are not
//! UTF-8, two objects glued on one line, a last line cut short by a crash.

use serde_json::Value;

/// One JSON value and the 1-based line it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub line: usize,
    pub value: Value,
}

/// Every JSON object in `bytes`, with a warning per line that was damaged.
/// Never fails: what cannot be read is reported and skipped.
pub fn read_records(bytes: &[u8]) -> (Vec<Record>, Vec<String>) {
    let mut records = Vec::new();
    let mut warnings = Vec::new();
    let mut lossy_lines = 0usize;
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let line_no = i + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let text = match std::str::from_utf8(raw) {
            Ok(s) => std::borrow::Cow::Borrowed(s),
            Err(_) => {
                lossy_lines += 1;
                String::from_utf8_lossy(raw)
            }
        };
        // A stream, not a single value: one line may hold several objects.
        let mut stream = serde_json::Deserializer::from_str(&text).into_iter::<Value>();
        let mut found = 0;
        loop {
            match stream.next() {
                Some(Ok(value)) => {
                    found += 1;
                    if value.is_object() {
                        records.push(Record {
                            line: line_no,
                            value,
                        });
                    }
                }
                Some(Err(e)) => {
                    let what = if e.is_eof() {
                        "is cut short"
                    } else {
                        "is not valid JSON"
                    };
                    let kept = if found > 0 {
                        format!(" (kept the {found} object(s) before the damage)")
                    } else {
                        String::new()
                    };
                    warnings.push(format!(
                        "line {line_no} {what} at column {}{kept}; skipped",
                        e.column()
                    ));
                    break;
                }
                None => break,
            }
        }
    }
    if lossy_lines > 0 {
        warnings.push(format!(
            "{lossy_lines} line(s) held bytes that are not UTF-8; they were read with replacement characters"
        ));
    }
    (records, warnings)
}
