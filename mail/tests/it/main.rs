//! The outbox against a real store (SQLite and PostgreSQL): what the feed
//! queues, that feeding again queues nothing twice, and what is skipped.

use chrono::Utc;
use secrecy::SecretString;
use sqlx::Row;

use commands::api_key::ApiKeyCommands;
use commands::executor::Executor;
use commands::mailing::MailingCommands;
use commands::secrets::ServerSecret;
use commands::store::testing::{both_modes, fresh_store, Mode};
use domain::api_key::{ApiKey, ApiKeyCommand};
use domain::metadata::{Actor, Metadata};
use domain::values::Email;
use mail::compose::{self, Built, Sender};
use mail::mailer::Mailer;
use mail::outbox;

fn metadata() -> Metadata {
    Metadata {
        recorded_at: Utc::now(),
        actor: Actor::Registrant,
        request_id: "t".into(),
        client_request_id: None,
        idempotency: None,
    }
}

fn email(text: &str) -> Email {
    Email::parse(text).expect("email")
}

fn secret() -> ServerSecret {
    ServerSecret::new(SecretString::from(
        "outbox-test-secret-0123456789abcdef".to_owned(),
    ))
}

fn sender(backend: &commands::store::Backend) -> Sender {
    Sender {
        from: "basel <noreply@basel.test>".parse().expect("from"),
        public_url: "https://basel.example.org".into(),
        secret: secret(),
        addresses: commands::identity::AddressBook::new(backend, &secret()),
    }
}

async fn rows(db: &projections::ReadDb) -> Vec<(String, String, String)> {
    sqlx::query("SELECT message_id, kind, status FROM mail_outbox ORDER BY message_id")
        .fetch_all(db)
        .await
        .expect("rows")
        .into_iter()
        .map(|r| (r.get("message_id"), r.get("kind"), r.get("status")))
        .collect()
}

async fn the_feed_queues_one_message_per_event_and_recipient_once(mode: Mode) {
    let store = fresh_store(mode).await;
    let db = projections::connect(&store.url).await.expect("read db");
    let keys = ApiKeyCommands::new(&store.backend, secret());
    let mailing = MailingCommands::new(&store.backend, secret());
    for address in ["ana@example.org", "bob@example.org", "cy@example.org"] {
        keys.register(&email(address), &metadata())
            .await
            .expect("register");
    }
    mailing
        .request_key_mail(&email("ana@example.org"), Utc::now(), &metadata())
        .await
        .expect("key mail");
    let bob = keys.id_of(&email("bob@example.org"));
    assert!(mailing
        .unsubscribe(&bob, &metadata())
        .await
        .expect("unsubscribe"));
    mailing
        .publish_notice("n-1", "Subject", "Body", &metadata())
        .await
        .expect("notice");
    // Registered after the notice: not one of its recipients.
    keys.register(&email("late@example.org"), &metadata())
        .await
        .expect("register");

    let mailer = Mailer::new(
        db.clone(),
        store.backend.clone(),
        sender(&store.backend),
        None,
    );
    mailer.pass().await.expect("pass");
    let queued = rows(&db).await;
    let ana = keys.id_of(&email("ana@example.org"));
    let cy = keys.id_of(&email("cy@example.org"));
    let mut expected = vec![
        (
            format!("key.{ana}.2"),
            "key".to_owned(),
            "queued".to_owned(),
        ),
        (
            format!("notice.n-1.{ana}"),
            "notice".into(),
            "queued".into(),
        ),
        (format!("notice.n-1.{cy}"), "notice".into(), "queued".into()),
    ];
    expected.sort();
    assert_eq!(queued, expected);

    // Reading the whole log again (a crash before the feed's commit) queues nothing new.
    sqlx::query("UPDATE mail_feed SET position = 0")
        .execute(&db)
        .await
        .expect("rewind");
    mailer.pass().await.expect("pass again");
    assert_eq!(rows(&db).await, expected);
    assert_eq!(
        outbox::counts(&db).await.expect("counts"),
        [("queued", 3), ("sent", 0), ("failed", 0), ("skipped", 0)]
    );
}

both_modes!(the_feed_queues_one_message_per_event_and_recipient_once);

async fn a_key_revoked_before_its_mail_leaves_is_skipped(mode: Mode) {
    let store = fresh_store(mode).await;
    let db = projections::connect(&store.url).await.expect("read db");
    let keys = ApiKeyCommands::new(&store.backend, secret());
    let ana = email("ana@example.org");
    keys.register(&ana, &metadata()).await.expect("register");
    MailingCommands::new(&store.backend, secret())
        .request_key_mail(&ana, Utc::now(), &metadata())
        .await
        .expect("key mail");
    Mailer::new(
        db.clone(),
        store.backend.clone(),
        sender(&store.backend),
        None,
    )
    .pass()
    .await
    .expect("pass");
    let due = outbox::due(&db, Utc::now(), 10).await.expect("due");
    assert_eq!(due.len(), 1);
    assert!(matches!(
        compose::build(&db, &sender(&store.backend), &due[0])
            .await
            .expect("build"),
        Built::Message(_)
    ));

    let revoke = ApiKeyCommand::Revoke {
        reason: "test".into(),
    };
    Executor::<ApiKey>::new(&store.backend)
        .execute(&keys.id_of(&ana), &revoke, &metadata())
        .await
        .expect("revoke");
    assert!(matches!(
        compose::build(&db, &sender(&store.backend), &due[0])
            .await
            .expect("build"),
        Built::Skip(_)
    ));
}

both_modes!(a_key_revoked_before_its_mail_leaves_is_skipped);
