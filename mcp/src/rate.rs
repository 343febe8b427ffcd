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

use rmcp::model::ErrorCode;
use rmcp::ErrorData;
use serde_json::json;

use crate::throttle::Throttle;

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

/// The buckets of every key, under one limit (a [`Throttle`]).
pub(crate) struct Limiter {
    limit: RateLimit,
    buckets: Throttle<String>,
}

impl Limiter {
    /// No buckets yet: a key's first call finds its bucket full.
    pub(crate) fn new(limit: RateLimit) -> Self {
        Self {
            limit,
            buckets: Throttle::new(limit),
        }
    }

    /// Takes one call from `key`'s allowance.
    ///
    /// # Errors
    /// The rate-limit error (-32029) with `data.retry_after_ms` when the
    /// bucket is empty.
    pub(crate) fn take(&self, key: &str) -> Result<(), ErrorData> {
        self.buckets.spend(&key.to_owned()).map_err(|wait| {
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
    fn a_bucket_allows_its_burst_then_answers_the_rate_limit_error() {
        let limiter = Limiter::new(RateLimit {
            per_second: 10.0,
            burst: 3,
        });
        for _ in 0..3 {
            assert!(limiter.take("k").is_ok());
        }
        let refused = limiter.take("k").expect_err("past the burst");
        assert_eq!(refused.code, RATE_LIMITED);
        let wait = refused.data.expect("data")["retry_after_ms"]
            .as_u64()
            .expect("retry_after_ms");
        assert!((1..=100).contains(&wait), "{wait}");
        assert!(limiter.take("other").is_ok(), "buckets are per key");
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
