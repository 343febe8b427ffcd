//! The limit on new registrations per client: a token bucket per client
//! address (an IPv4 address, or an IPv6 /64, since one host holds a whole
//! /64). Only registrations that would issue a key spend a token; an address
//! that already holds a key gets it back without spending one.
//!
//! The client address is the TCP peer. Behind a reverse proxy every client
//! shares the proxy's address: give the proxy its own limit, or raise this
//! one. Buckets live in the server's state (never process-wide), in a
//! `governor` limiter that drops full buckets when it tracks many.
//!
//! Once an address's bucket is found empty, every registration from it is
//! refused until it refills, a repeat of a registered address included: the
//! answer past the limit does not tell which addresses are registered.

use std::net::IpAddr;
use std::time::Duration;

use crate::throttle::RateLimit;
use crate::throttle::Throttle;

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

/// The buckets of one server (a [`Throttle`] on `governor`).
pub struct RegistrationLimit(Throttle<IpAddr>);

impl std::fmt::Debug for RegistrationLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistrationLimit").finish_non_exhaustive()
    }
}

impl Default for RegistrationLimit {
    fn default() -> Self {
        Self::new(RegisterRate::default())
    }
}

pub use crate::throttle::retry_after_secs;

impl RegistrationLimit {
    /// Buckets filling at `rate`.
    pub fn new(rate: RegisterRate) -> Self {
        Self(Throttle::new(RateLimit {
            per_second: rate.per_second(),
            burst: rate.burst.round().clamp(1.0, f64::from(u32::MAX)) as u32,
        }))
    }

    /// Spends a token of `peer`'s bucket: `Ok` when there was one, else how
    /// long until there is.
    ///
    /// # Errors
    /// The wait before the next registration from this client can succeed.
    pub fn try_register(&self, peer: IpAddr) -> Result<(), Duration> {
        self.0.spend(&crate::throttle::client_address(peer))
    }

    /// How long `peer` stays refused after its bucket was found empty: every
    /// registration from it, of a new address or a registered one, is then
    /// 429, so the answer does not tell which addresses are registered.
    pub fn held_back(&self, peer: IpAddr) -> Option<Duration> {
        self.0.held_back(&crate::throttle::client_address(peer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_gets_its_burst_then_waits_for_the_rate() {
        let limit = RegistrationLimit::new(RegisterRate::parse("60/3").expect("rate"));
        let peer = IpAddr::from([192, 0, 2, 1]);
        for _ in 0..3 {
            assert!(limit.try_register(peer).is_ok());
        }
        assert!(limit.held_back(peer).is_none());
        let wait = limit.try_register(peer).expect_err("past the burst");
        assert!((59..=60).contains(&wait.as_secs()), "{wait:?}");
        assert!(
            limit.held_back(peer).is_some(),
            "held back until it refills"
        );
        assert!(limit.try_register(IpAddr::from([192, 0, 2, 2])).is_ok());
    }

    #[test]
    fn one_ipv6_network_shares_a_bucket() {
        let limit = RegistrationLimit::new(RegisterRate::parse("1/1").expect("rate"));
        let a: IpAddr = "2001:db8::1".parse().expect("ip");
        let b: IpAddr = "2001:db8::ffff:2".parse().expect("ip");
        assert!(limit.try_register(a).is_ok());
        assert!(limit.try_register(b).is_err());
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
