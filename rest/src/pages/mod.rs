//! The HTML pages of the REST listener: the start page ([`home`]), the
//! reference ([`docs`]), registration for a free key ([`register`], HTML or
//! JSON on one route, with [`page`] and [`mail_delivery`]) and
//! unsubscribing from mail ([`unsubscribe`]).

pub mod docs;
pub mod home;
pub mod mail_delivery;
pub mod page;
pub mod register;
pub mod unsubscribe;
