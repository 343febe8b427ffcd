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

use web::throttle::{RateLimit, Throttle};

/// The JSON-RPC error code of a refused call (in the implementation-defined
/// server-error range; "429" in the last digits for people reading logs).
pub const RATE_LIMITED: ErrorCode = ErrorCode(-32029);

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
}
