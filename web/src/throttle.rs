//! Token buckets per key (an API key's hash, a client address), on the
//! `governor` crate: the one rate limiter of basel, used by the MCP call
//! limit (`mcp`), failed-authentication throttling on both edges
//! ([`FailedAuth`]) and the REST registration limit.
//!
//! A [`Throttle`] also remembers, per key, until when its bucket is empty
//! once a spend was refused ([`Throttle::held_back`]): a caller can then
//! refuse a request before doing any work for it (a key lookup, a
//! registration), whatever that work would have answered.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// The address a client counts as (a session, a bucket): an IPv4 address (also when mapped
/// into IPv6), or the /64 of an IPv6 one (one host's usual allocation).
pub fn client_address(peer: IpAddr) -> IpAddr {
    match peer {
        IpAddr::V4(_) => peer,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut octets = v6.octets();
                octets[8..].fill(0);
                IpAddr::from(octets)
            }
        },
    }
}

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

/// Keys tracked before the full buckets are dropped.
const PRUNE_ABOVE: usize = 100_000;

/// Token buckets per key under one quota.
pub struct Throttle<K: Hash + Eq + Clone> {
    limiter: DefaultKeyedRateLimiter<K>,
    clock: DefaultClock,
    /// Keys whose bucket was found empty, until it holds a token again.
    held: Mutex<HashMap<K, Instant>>,
}

impl<K: Hash + Eq + Clone> Throttle<K> {
    /// Buckets of `burst` tokens refilled at `per_second` a second.
    pub fn new(rate: RateLimit) -> Self {
        let period = Duration::from_secs_f64(1.0 / rate.per_second).max(Duration::from_nanos(1));
        let burst = NonZeroU32::new(rate.burst).unwrap_or(NonZeroU32::MIN);
        let quota = Quota::with_period(period)
            .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
            .allow_burst(burst);
        Self {
            limiter: RateLimiter::keyed(quota),
            clock: DefaultClock::default(),
            held: Mutex::default(),
        }
    }

    /// Takes one token of `key`'s bucket.
    ///
    /// # Errors
    /// The wait until the bucket holds a token again; until then
    /// [`Throttle::held_back`] names the key too.
    pub fn spend(&self, key: &K) -> Result<(), Duration> {
        if self.limiter.len() > PRUNE_ABOVE {
            self.limiter.retain_recent();
        }
        match self.limiter.check_key(key) {
            Ok(()) => Ok(()),
            Err(not_until) => {
                let wait = not_until.wait_time_from(self.clock.now());
                let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
                if held.len() > PRUNE_ABOVE {
                    let now = Instant::now();
                    held.retain(|_, until| *until > now);
                }
                held.insert(key.clone(), Instant::now() + wait);
                Err(wait)
            }
        }
    }

    /// How long `key` stays held back after its bucket was found empty
    /// (`None` when it is not).
    pub fn held_back(&self, key: &K) -> Option<Duration> {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let until = *held.get(key)?;
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            held.remove(key);
            return None;
        }
        Some(left)
    }
}

/// Failed authentications per client address (IPv4 address, IPv6 /64):
/// each 401 spends a token; once the bucket is empty, requests from the
/// address that present a credential are answered 429 with `Retry-After`
/// before any lookup, until it refills. One per edge, under
/// `BASEL_AUTH_FAILURE_RATE`.
pub struct FailedAuth(Throttle<IpAddr>);

impl FailedAuth {
    /// Buckets under `rate` (failures a second, burst).
    pub fn new(rate: RateLimit) -> Self {
        Self(Throttle::new(rate))
    }

    /// The default: 10 failures a second, bursts of 100.
    pub fn default_rate() -> RateLimit {
        RateLimit {
            per_second: 10.0,
            burst: 100,
        }
    }

    /// The wait left when `peer` may not try a credential now.
    pub fn held_back(&self, peer: IpAddr) -> Option<Duration> {
        self.0.held_back(&client_address(peer))
    }

    /// Records a failed authentication from `peer`.
    ///
    /// # Errors
    /// The wait before `peer` may try again, when this failure emptied its
    /// bucket (answer 429 rather than 401).
    pub fn failed(&self, peer: IpAddr) -> Result<(), Duration> {
        self.0.spend(&client_address(peer))
    }
}

impl std::fmt::Debug for FailedAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FailedAuth").finish_non_exhaustive()
    }
}

impl Default for FailedAuth {
    fn default() -> Self {
        Self::new(Self::default_rate())
    }
}

/// Whole seconds to put in `Retry-After` for `wait` (at least 1).
pub fn retry_after_secs(wait: Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_allows_its_burst_then_holds_the_key_back_until_it_refills() {
        let throttle = Throttle::new(RateLimit {
            per_second: 20.0,
            burst: 3,
        });
        for _ in 0..3 {
            assert!(throttle.spend(&"k").is_ok());
        }
        let wait = throttle.spend(&"k").expect_err("past the burst");
        assert!(
            wait <= Duration::from_millis(50) && !wait.is_zero(),
            "{wait:?}"
        );
        assert!(throttle.held_back(&"k").is_some());
        assert!(throttle.spend(&"other").is_ok(), "buckets are per key");
        assert!(throttle.held_back(&"other").is_none());
        std::thread::sleep(Duration::from_millis(60));
        assert!(throttle.held_back(&"k").is_none());
        assert!(throttle.spend(&"k").is_ok());
    }

    #[test]
    fn failures_count_per_address_and_per_ipv6_slash_64() {
        let failures = FailedAuth::new(RateLimit {
            per_second: 0.001,
            burst: 2,
        });
        let a: IpAddr = "2001:db8::1".parse().unwrap();
        let b: IpAddr = "2001:db8::2".parse().unwrap();
        assert!(failures.failed(a).is_ok());
        assert!(failures.failed(b).is_ok());
        assert!(failures.failed(a).is_err(), "the same /64");
        assert!(failures.held_back(b).is_some());
        assert!(failures.failed(IpAddr::from([192, 0, 2, 1])).is_ok());
        assert_eq!(retry_after_secs(Duration::from_millis(1_200)), 2);
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

    #[test]
    fn an_ipv6_client_is_its_slash_64_and_a_mapped_ipv4_its_address() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_address(a), client_address(b));
        assert_ne!(client_address(a), client_address(c));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(client_address(mapped), IpAddr::from([192, 0, 2, 7]));
    }
}
