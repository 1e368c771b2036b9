//! Dates a query talks about ("what changed in March 2026?", "on 8 May,
//! 2023", "2026-03-04"), so recall can prefer items from that time. The date
//! words themselves match nothing: an item's date is metadata, not text.

use jiff::civil::Date;

/// A time a query names: a day, or a month of a given year or of any year.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub year: Option<i16>,
    pub month: i8,
    pub day: Option<i8>,
}

/// Things said about a time often land in the notes of the following days
/// ("last week we..."), so a period extends this far past its end.
const GRACE_DAYS: i64 = 7;

impl Period {
    /// Whether an item dated `date` (RFC 3339) belongs to this period.
    pub fn contains(&self, date: &str) -> bool {
        let Ok(ts) = date.parse::<jiff::Timestamp>() else {
            return false;
        };
        let d = ts.to_zoned(jiff::tz::TimeZone::UTC).date();
        let grace = jiff::Span::new().days(GRACE_DAYS);
        match (self.year, self.day) {
            (Some(y), Some(day)) => Date::new(y, self.month, day).is_ok_and(|start| {
                d >= start && start.checked_add(grace).is_ok_and(|end| d <= end)
            }),
            (Some(y), None) => Date::new(y, self.month, 1).is_ok_and(|start| {
                let end = start.last_of_month().checked_add(grace);
                d >= start && end.is_ok_and(|end| d <= end)
            }),
            (None, _) => {
                // Any year: the month itself, or the first days of the next one.
                d.month() == self.month
                    || (d.month() == self.month % 12 + 1 && i64::from(d.day()) <= GRACE_DAYS)
            }
        }
    }
}

const MONTHS: [(&str, i8); 24] = [
    ("January", 1),
    ("February", 2),
    ("March", 3),
    ("April", 4),
    ("May", 5),
    ("June", 6),
    ("July", 7),
    ("August", 8),
    ("September", 9),
    ("October", 10),
    ("November", 11),
    ("December", 12),
    ("Jan", 1),
    ("Feb", 2),
    ("Mar", 3),
    ("Apr", 4),
    ("Jun", 6),
    ("Jul", 7),
    ("Aug", 8),
    ("Sep", 9),
    ("Sept", 9),
    ("Oct", 10),
    ("Nov", 11),
    ("Dec", 12),
];

fn month_of(word: &str) -> Option<i8> {
    MONTHS
        .iter()
        .find(|(name, _)| *name == word)
        .map(|(_, m)| *m)
}

fn year_of(word: &str) -> Option<i16> {
    (word.len() == 4)
        .then(|| word.parse::<i16>().ok())
        .flatten()
        .filter(|y| (1900..=2200).contains(y))
}

fn day_of(word: &str) -> Option<i8> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix_ok = matches!(&word[digits.len()..], "" | "st" | "nd" | "rd" | "th");
    (suffix_ok && (1..=2).contains(&digits.len()))
        .then(|| digits.parse::<i8>().ok())
        .flatten()
        .filter(|d| (1..=31).contains(d))
}

/// The first period a query names, if any. Month names count only when
/// capitalised, and "May" only next to a day or a year (it is also a verb).
pub(crate) fn period_in(query: &str) -> Option<Period> {
    let words: Vec<&str> = query
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .collect();
    for w in &words {
        if let Ok(d) = w.parse::<Date>() {
            return Some(Period {
                year: Some(d.year()),
                month: d.month(),
                day: Some(d.day()),
            });
        }
    }
    for (i, w) in words.iter().enumerate() {
        let Some(month) = month_of(w) else { continue };
        let before = i.checked_sub(1).and_then(|j| words.get(j)).copied();
        let after = words.get(i + 1).copied();
        let after2 = words.get(i + 2).copied();
        let day = before.and_then(day_of).or_else(|| after.and_then(day_of));
        let year = after
            .and_then(year_of)
            .or_else(|| after.and_then(day_of).and(after2.and_then(year_of)))
            .or_else(|| before.and_then(year_of));
        if *w == "May" && day.is_none() && year.is_none() {
            continue;
        }
        return Some(Period {
            year,
            month,
            day: day.filter(|_| year.is_some()),
        });
    }
    None
}

/// The day a text names in full (`2023-05-08`, `8 May, 2023`, `May 8th
/// 2023`), if any: what a heading such as `## Session 3 (8 May, 2023)` dates
/// the items under it with.
pub(crate) fn day_in(text: &str) -> Option<Date> {
    match period_in(text)? {
        Period {
            year: Some(year),
            month,
            day: Some(day),
        } => Date::new(year, month, day).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_name_a_day_only_in_full() {
        let may8 = Date::new(2023, 5, 8).ok();
        assert_eq!(day_in("2023-05-08"), may8);
        assert_eq!(day_in("Session 3 (1:56 pm on 8 May, 2023)"), may8);
        assert_eq!(day_in("May 8th, 2023"), may8);
        assert_eq!(day_in("March 2026"), None, "a month is not a day");
        assert_eq!(day_in("Gotchas"), None);
        assert_eq!(day_in("31 February 2023"), None);
    }

    fn p(year: Option<i16>, month: i8, day: Option<i8>) -> Option<Period> {
        Some(Period { year, month, day })
    }

    #[test]
    fn finds_the_forms_people_write() {
        assert_eq!(
            period_in("what changed in March 2026?"),
            p(Some(2026), 3, None)
        );
        assert_eq!(
            period_in("What did she do on 8 May, 2023?"),
            p(Some(2023), 5, Some(8))
        );
        assert_eq!(
            period_in("deploys since Oct 3rd 2024"),
            p(Some(2024), 10, Some(3))
        );
        assert_eq!(
            period_in("the 2026-03-04 migration"),
            p(Some(2026), 3, Some(4))
        );
        assert_eq!(period_in("flaky tests in June"), p(None, 6, None));
    }

    #[test]
    fn ordinary_words_are_not_dates() {
        assert_eq!(period_in("we may march on with the plan"), None);
        assert_eq!(period_in("May I ask why the build broke?"), None);
        assert_eq!(period_in("how many tests in 2023"), None);
        assert_eq!(period_in(""), None);
    }

    #[test]
    fn periods_include_a_grace_week() {
        let march = period_in("in March 2026").unwrap();
        assert!(march.contains("2026-03-01T00:00:00Z"));
        assert!(march.contains("2026-04-06T12:00:00Z"));
        assert!(!march.contains("2026-04-09T00:00:00Z"));
        assert!(!march.contains("2025-03-15T00:00:00Z"));
        let any_june = period_in("in June").unwrap();
        assert!(
            any_june.contains("2019-06-30T00:00:00Z") && any_june.contains("2024-07-02T00:00:00Z")
        );
        assert!(!any_june.contains("2024-05-31T00:00:00Z"));
        let day = period_in("on 8 May 2023").unwrap();
        assert!(day.contains("2023-05-08T09:00:00Z") && day.contains("2023-05-15T00:00:00Z"));
        assert!(!day.contains("2023-05-07T00:00:00Z"));
        assert!(!day.contains("not a date"));
    }
}
