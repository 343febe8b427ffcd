//! A token bucket per API key on the calls that do work: `tools/call` and
//! `resources/read`.
//!
//! Each key's bucket holds up to `burst` tokens and refills at `per_second`
//! tokens a second; a call takes one. A call that finds the bucket empty is
//! refused with a JSON-RPC error (-32029) whose message and
//! `data.retry_after_ms` say when one token will be back. The buckets live in
//! the [`Limiter`] the router owns (one per router, never process-wide).
//! Only authenticated keys get a bucket, so the map is bounded by the key
//! table; full buckets are dropped now and then to keep it small.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::ErrorCode;
use rmcp::ErrorData;
use serde_json::json;

/// The JSON-RPC error code of a refused call (in the implementation-defined
/// server-error range; "429" in the last digits for people reading logs).
pub const RATE_LIMITED: ErrorCode = ErrorCode(-32029);

/// How fast one API key may call tools and read resources.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateLimit {
    /// Tokens added per second (sustained calls per second).
    pub per_second: f64,
    /// Bucket size: calls allowed at once after a quiet spell.
    pub burst: u32,
}

impl Default for RateLimit {
    /// 20 calls a second, bursts of 100.
    fn default() -> Self {
        Self {
            per_second: 20.0,
            burst: 100,
        }
    }
}

impl RateLimit {
    /// Parses `RATE[/BURST]`, e.g. `20`, `20/100` or `0.5/10` (the format of
    /// `BASEL_MCP_RATE`); the burst defaults to 100.
    ///
    /// # Errors
    /// A message naming the expected format when `text` is not one.
    pub fn parse(text: &str) -> Result<Self, String> {
        let wrong = || {
            format!(
                "`{text}` is not a rate: use RATE[/BURST], calls per second and bucket size, e.g. 20/100"
            )
        };
        let (rate, burst) = match text.trim().split_once('/') {
            Some((rate, burst)) => (rate, Some(burst)),
            None => (text.trim(), None),
        };
        let per_second: f64 = rate.trim().parse().map_err(|_| wrong())?;
        let burst = match burst {
            Some(b) => b.trim().parse().map_err(|_| wrong())?,
            None => Self::default().burst,
        };
        if !(per_second.is_finite() && per_second > 0.0) || burst == 0 {
            return Err(wrong());
        }
        Ok(Self { per_second, burst })
    }
}

#[derive(Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Buckets above this many trigger a sweep of the full ones.
const SWEEP_ABOVE: usize = 10_000;

/// The buckets of every key, under one limit.
pub(crate) struct Limiter {
    limit: RateLimit,
    buckets: Mutex<HashMap<String, Bucket>>,
}

impl Limiter {
    /// No buckets yet: a key's first call finds its bucket full.
    pub(crate) fn new(limit: RateLimit) -> Self {
        Self {
            limit,
            buckets: Mutex::default(),
        }
    }

    /// Takes one token from `key`'s bucket at `now`, or says how long until
    /// one is back.
    fn take_at(&self, key: &str, now: Instant) -> Result<(), Duration> {
        let RateLimit { per_second, burst } = self.limit;
        let burst = f64::from(burst);
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if buckets.len() > SWEEP_ABOVE {
            buckets.retain(|_, b| {
                b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * per_second < burst
            });
        }
        let bucket = buckets.entry(key.to_owned()).or_insert(Bucket {
            tokens: burst,
            at: now,
        });
        let refilled = now.saturating_duration_since(bucket.at).as_secs_f64() * per_second;
        bucket.tokens = (bucket.tokens + refilled).min(burst);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / per_second))
        }
    }

    /// Takes one call from `key`'s allowance.
    ///
    /// # Errors
    /// The rate-limit error (-32029) with `data.retry_after_ms` when the
    /// bucket is empty.
    pub(crate) fn take(&self, key: &str) -> Result<(), ErrorData> {
        self.take_at(key, Instant::now()).map_err(|wait| {
            let retry_after_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
            ErrorData::new(
                RATE_LIMITED,
                format!(
                    "rate limit exceeded ({} calls per second, bursts of {}): retry in {retry_after_ms} ms",
                    self.limit.per_second, self.limit.burst
                ),
                Some(json!({
                    "retry_after_ms": retry_after_ms,
                    "per_second": self.limit.per_second,
                    "burst": self.limit.burst,
                })),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_allows_its_burst_then_refills_at_the_rate() {
        let limiter = Limiter::new(RateLimit {
            per_second: 10.0,
            burst: 3,
        });
        let start = Instant::now();
        for _ in 0..3 {
            assert!(limiter.take_at("k", start).is_ok());
        }
        let wait = limiter.take_at("k", start).unwrap_err();
        assert_eq!(wait, Duration::from_millis(100));
        assert!(
            limiter.take_at("other", start).is_ok(),
            "buckets are per key"
        );
        assert!(limiter
            .take_at("k", start + Duration::from_millis(100))
            .is_ok());
        assert!(limiter
            .take_at("k", start + Duration::from_millis(110))
            .is_err());
    }

    #[test]
    fn rates_parse_with_an_optional_burst() {
        assert_eq!(RateLimit::parse("20").unwrap(), RateLimit::default());
        assert_eq!(
            RateLimit::parse(" 0.5 / 10 ").unwrap(),
            RateLimit {
                per_second: 0.5,
                burst: 10
            }
        );
        for bad in ["", "x", "0", "-1/5", "5/0", "5/x", "inf"] {
            assert!(RateLimit::parse(bad).is_err(), "{bad}");
        }
    }
}
