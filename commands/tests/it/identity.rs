//! The address book on both stores: what a registration or an enrolment
//! records is sealed, opens back to the address, and opens no more once the
//! person is forgotten; a plaintext event from before sealing is sealed in
//! place.

use chrono::Utc;
use secrecy::SecretString;

use commands::api_key::ApiKeyCommands;
use commands::identity::{erase, legacy, AddressBook};
use commands::secrets::ServerSecret;
use commands::steward::StewardCommands;
use commands::store::testing::{both_modes, fresh_store, without_append_guard, Mode};
use commands::store::Backend;
use domain::metadata::{Actor, Metadata};
use domain::values::{Email, Slug};

fn metadata() -> Metadata {
    Metadata {
        recorded_at: Utc::now(),
        actor: Actor::Admin,
        request_id: "req".into(),
        client_request_id: None,
        idempotency: None,
    }
}

fn secret() -> ServerSecret {
    ServerSecret::new(SecretString::from("identity-test-secret-0123456789abcdef"))
}

/// Every stored payload, as text.
async fn payloads(backend: &Backend) -> Vec<String> {
    match backend {
        Backend::Postgres(pool) => sqlx::query_scalar("SELECT payload::text FROM events")
            .fetch_all(pool)
            .await
            .expect("events"),
        Backend::Sqlite(pool) => sqlx::query_scalar("SELECT payload FROM events")
            .fetch_all(pool)
            .await
            .expect("events"),
    }
}

async fn sealed_addresses_open_until_the_person_is_forgotten(mode: Mode) {
    let store = fresh_store(mode).await;
    let backend = &store.backend;
    let book = AddressBook::new(backend, &secret());
    let email = Email::parse("Ana.Lima@Example.org").expect("email");
    let keys = ApiKeyCommands::new(backend, secret());
    keys.register(&email, &metadata())
        .await
        .expect("registered");
    StewardCommands::new(backend)
        .enrol(
            Slug::parse("ana").expect("slug"),
            "Ana Lima",
            email.clone(),
            &secret(),
            &metadata(),
        )
        .await
        .expect("enrolled");
    for payload in payloads(backend).await {
        assert!(!payload.to_lowercase().contains("ana.lima@"), "{payload}");
    }
    let id = keys.id_of(&email);
    assert_eq!(
        book.registrant(&id).await.expect("read"),
        Some(email.clone())
    );
    assert_eq!(book.registrant("no-such-id").await.expect("read"), None);
    assert_eq!(book.stewards_with(&email).await.expect("read"), vec!["ana"]);

    let erasure = erase::forget(&book, &secret(), &email, &metadata())
        .await
        .expect("forgotten");
    assert!(erasure.registrant);
    assert_eq!(erasure.stewards, vec!["ana"]);
    assert_eq!(erasure.keys_destroyed, 1);
    assert_eq!(book.registrant(&id).await.expect("read"), None);
    assert!(book.stewards_with(&email).await.expect("read").is_empty());

    let again = keys.register(&email, &metadata()).await.expect("again");
    assert!(again.created, "a forgotten address registers anew");
    assert_eq!(book.registrant(&id).await.expect("read"), Some(email));
}

async fn plaintext_events_from_before_sealing_are_sealed_in_place(mode: Mode) {
    let store = fresh_store(mode).await;
    let backend = &store.backend;
    let book = AddressBook::new(backend, &secret());
    let email = Email::parse("old@example.org").expect("email");
    let keys = ApiKeyCommands::new(backend, secret());
    keys.register(&email, &metadata())
        .await
        .expect("registered");
    let legacy_payload = r#"{"ApiKeyIssued":{"email":"old@example.org","generation":1,"key_hash":"h","key_prefix":"bsl_"}}"#;
    // A store written before sealing: the append-only guard did not exist.
    without_append_guard(
        backend,
        &format!("UPDATE events SET payload = '{legacy_payload}', event_version = '1'"),
    )
    .await;
    let id = keys.id_of(&email);
    assert_eq!(
        book.registrant(&id).await.expect("read"),
        Some(email.clone()),
        "a plaintext event still reads"
    );
    let resealed = legacy::seal_plaintext(&book).await.expect("sealed");
    assert_eq!(resealed.len(), 1);
    assert!(payloads(backend)
        .await
        .iter()
        .all(|p| !p.contains("old@example.org")));
    assert_eq!(book.registrant(&id).await.expect("read"), Some(email));
    assert!(legacy::seal_plaintext(&book)
        .await
        .expect("again")
        .is_empty());
}

both_modes!(
    sealed_addresses_open_until_the_person_is_forgotten,
    plaintext_events_from_before_sealing_are_sealed_in_place
);
