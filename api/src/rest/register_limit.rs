//! The limit on new registrations per client: a token bucket per client
//! address (an IPv4 address, or an IPv6 /64, since one host holds a whole
//! /64). Only registrations that would issue a key spend a token; an address
//! that already holds a key gets it back without spending one.
//!
//! The client address is the TCP peer. Behind a reverse proxy every client
//! shares the proxy's address: give the proxy its own limit, or raise this
//! one. Buckets live in the server's state (never process-wide); at most
//! [`MAX_CLIENTS`] are kept, and when that many are tracked the ones that
//! have refilled are dropped first (then, under a flood from more addresses
//! than that, all of them: memory stays bounded, the flood is still slowed
//! per address).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Clients tracked at most.
const MAX_CLIENTS: usize = 100_000;

/// New registrations per client: `per_hour` tokens a hour, up to `burst`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RegisterRate {
    /// Tokens added per hour.
    pub per_hour: f64,
    /// Bucket size: registrations a client may make at once.
    pub burst: f64,
}

impl Default for RegisterRate {
    fn default() -> Self {
        Self {
            per_hour: 20.0,
            burst: 10.0,
        }
    }
}

impl RegisterRate {
    /// Parses `RATE[/BURST]`: new registrations per hour per client, and the
    /// burst (default: the rate, at least 1).
    ///
    /// # Errors
    /// A sentence naming the expected shape.
    pub fn parse(text: &str) -> Result<Self, String> {
        let refuse = || {
            format!("expected RATE[/BURST] (registrations per hour per client, then the burst), e.g. 20/10, got {text:?}")
        };
        let (rate, burst) = match text.trim().split_once('/') {
            Some((rate, burst)) => (rate, Some(burst)),
            None => (text.trim(), None),
        };
        let rate: f64 = rate.trim().parse().map_err(|_| refuse())?;
        let burst: f64 = match burst {
            Some(b) => b.trim().parse().map_err(|_| refuse())?,
            None => rate.max(1.0),
        };
        if !(rate.is_finite() && rate > 0.0 && burst.is_finite() && burst >= 1.0) {
            return Err(refuse());
        }
        Ok(Self {
            per_hour: rate,
            burst,
        })
    }

    fn per_second(self) -> f64 {
        self.per_hour / 3600.0
    }
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The buckets of one server.
#[derive(Debug, Default)]
pub struct RegistrationLimit {
    rate: RegisterRate,
    buckets: Mutex<HashMap<IpAddr, Bucket>>,
}

/// Which bucket a peer address fills: the address for IPv4, its /64 for IPv6.
fn client_key(peer: IpAddr) -> IpAddr {
    match peer {
        IpAddr::V4(_) => peer,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::V6(segments.into())
            }
        },
    }
}

impl RegistrationLimit {
    /// Buckets filling at `rate`.
    pub fn new(rate: RegisterRate) -> Self {
        Self {
            rate,
            buckets: Mutex::default(),
        }
    }

    /// Spends a token of `peer`'s bucket: `Ok` when there was one, else how
    /// long until there is.
    ///
    /// # Errors
    /// The wait before the next registration from this client can succeed.
    pub fn try_register(&self, peer: IpAddr) -> Result<(), Duration> {
        self.try_register_at(peer, Instant::now())
    }

    fn try_register_at(&self, peer: IpAddr, now: Instant) -> Result<(), Duration> {
        let rate = self.rate;
        let Ok(mut buckets) = self.buckets.lock() else {
            return Ok(());
        };
        if buckets.len() >= MAX_CLIENTS {
            buckets.retain(|_, b| refill(rate, *b, now) < rate.burst);
            if buckets.len() >= MAX_CLIENTS {
                buckets.clear();
            }
        }
        let bucket = buckets.entry(client_key(peer)).or_insert(Bucket {
            tokens: rate.burst,
            at: now,
        });
        let tokens = refill(rate, *bucket, now);
        if tokens >= 1.0 {
            *bucket = Bucket {
                tokens: tokens - 1.0,
                at: now,
            };
            return Ok(());
        }
        *bucket = Bucket { tokens, at: now };
        Err(Duration::from_secs_f64((1.0 - tokens) / rate.per_second()))
    }
}

fn refill(rate: RegisterRate, bucket: Bucket, now: Instant) -> f64 {
    let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
    (bucket.tokens + elapsed * rate.per_second()).min(rate.burst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_gets_its_burst_then_waits_for_the_rate() {
        let limit = RegistrationLimit::new(RegisterRate::parse("60/3").expect("rate"));
        let (peer, t0) = (IpAddr::from([192, 0, 2, 1]), Instant::now());
        for _ in 0..3 {
            assert!(limit.try_register_at(peer, t0).is_ok());
        }
        let wait = limit.try_register_at(peer, t0).expect_err("past the burst");
        assert_eq!(wait.as_secs(), 60);
        assert!(limit
            .try_register_at(IpAddr::from([192, 0, 2, 2]), t0)
            .is_ok());
        assert!(limit
            .try_register_at(peer, t0 + Duration::from_secs(61))
            .is_ok());
    }

    #[test]
    fn one_ipv6_network_shares_a_bucket() {
        let limit = RegistrationLimit::new(RegisterRate::parse("1/1").expect("rate"));
        let t0 = Instant::now();
        let a: IpAddr = "2001:db8::1".parse().expect("ip");
        let b: IpAddr = "2001:db8::ffff:2".parse().expect("ip");
        assert!(limit.try_register_at(a, t0).is_ok());
        assert!(limit.try_register_at(b, t0).is_err());
    }

    #[test]
    fn rates_parse_or_say_what_is_expected() {
        assert_eq!(
            RegisterRate::parse("20/10"),
            Ok(RegisterRate {
                per_hour: 20.0,
                burst: 10.0
            })
        );
        assert_eq!(RegisterRate::parse("5").map(|r| r.burst), Ok(5.0));
        for bad in ["", "0", "-1/2", "x/2", "3/0", "inf"] {
            assert!(RegisterRate::parse(bad).is_err(), "{bad}");
        }
    }
}
