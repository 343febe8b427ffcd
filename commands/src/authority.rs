//! Commands on competent-authority records.

use domain::authority::{
    AddContact, Authority, AuthorityCommand, AuthorityError, AuthorityEvent, DesignatePrimary,
    Evidence, RegisterAuthority, RemoveContact, RetireAuthority, ReviewCommand,
    SubmitVerificationUpdate,
};
use domain::metadata::Metadata;
use domain::values::{CountryCode, Slug};

use crate::executor::{Committed, Executor};
use crate::store::Backend;
use crate::CommandError;

/// The write side of the authority directory, used by every edge (REST, CLI
/// import, seed).
pub struct AuthorityCommands {
    executor: Executor<Authority>,
    backend: Backend,
}

impl AuthorityCommands {
    /// Commands writing to `backend`.
    pub fn new(backend: &Backend) -> Self {
        Self {
            executor: Executor::new(backend),
            backend: backend.clone(),
        }
    }

    /// Adds a country's authority.
    ///
    /// # Errors
    /// [`CommandError::Rejected`] with [`AuthorityError::AlreadyRegistered`] or
    /// invalid fields; conflict and infrastructure errors as for any command.
    pub async fn register(
        &self,
        command: RegisterAuthority,
        metadata: &Metadata,
    ) -> Result<Committed, CommandError<AuthorityError>> {
        let id = command.country.as_str().to_owned();
        self.executor
            .execute(&id, &AuthorityCommand::Register(command), metadata)
            .await
    }

    /// Records a steward's check of a record, with its corrections.
    ///
    /// # Errors
    /// [`CommandError::Rejected`] when the country is unknown or a rule is
    /// broken; [`CommandError::Conflict`] when another update won the race.
    pub async fn submit_verification(
        &self,
        country: &CountryCode,
        command: SubmitVerificationUpdate,
        metadata: &Metadata,
    ) -> Result<Committed, CommandError<AuthorityError>> {
        self.submit_verification_at(country, command, metadata, None)
            .await
    }

    /// [`AuthorityCommands::submit_verification`] only if the record is still
    /// at `expected_version` (the `version` the steward last read).
    ///
    /// # Errors
    /// As `submit_verification`; [`CommandError::VersionMismatch`] when the
    /// record moved on, even if by a write of another process a moment ago.
    pub async fn submit_verification_at(
        &self,
        country: &CountryCode,
        command: SubmitVerificationUpdate,
        metadata: &Metadata,
        expected_version: Option<i64>,
    ) -> Result<Committed, CommandError<AuthorityError>> {
        self.executor
            .execute_at(
                country.as_str(),
                &AuthorityCommand::SubmitVerification(command),
                metadata,
                expected_version,
            )
            .await
    }

    /// A check with the files that back it (already stored by hash), in
    /// one commit, only if the record is still at `expected_version`.
    ///
    /// # Errors
    /// As [`AuthorityCommands::submit_verification_at`]; a malformed file
    /// reference is refused (`evidence`).
    pub async fn submit_verification_with_evidence_at(
        &self,
        country: &CountryCode,
        command: SubmitVerificationUpdate,
        evidence: Vec<Evidence>,
        metadata: &Metadata,
        expected_version: Option<i64>,
    ) -> Result<Committed, CommandError<AuthorityError>> {
        self.executor
            .execute_at(
                country.as_str(),
                &AuthorityCommand::SubmitVerificationWithEvidence(command, evidence),
                metadata,
                expected_version,
            )
            .await
    }

    /// Any authority command, only if the record is still at
    /// `expected_version` (the console's contact forms: the preview decided
    /// the same command against that version).
    ///
    /// # Errors
    /// [`CommandError::Rejected`] when the domain refuses it;
    /// [`CommandError::VersionMismatch`] when the record moved on.
    pub async fn execute_at(
        &self,
        country: &CountryCode,
        command: &AuthorityCommand,
        metadata: &Metadata,
        expected_version: Option<i64>,
    ) -> Result<Committed, CommandError<AuthorityError>> {
        self.executor
            .execute_at(country.as_str(), command, metadata, expected_version)
            .await
    }

    /// Proposes, approves or rejects a check under four-eyes review
    /// (`domain::authority::review`), pinned to `expected_version` if given.
    ///
    /// # Errors
    /// [`CommandError::Rejected`] when the review rules refuse it (own
    /// proposal, stale, unknown) or the check would be refused.
    pub async fn review(
        &self,
        country: &CountryCode,
        command: ReviewCommand,
        metadata: &Metadata,
        expected_version: Option<i64>,
    ) -> Result<Committed, CommandError<AuthorityError>> {
        self.executor
            .execute_at(
                country.as_str(),
                &AuthorityCommand::Review(command),
                metadata,
                expected_version,
            )
            .await
    }

    /// Records that `steward` took the Party's work on.
    ///
    /// # Errors
    /// [`CommandError::Rejected`] when the country is not registered.
    pub async fn assign(
        &self,
        country: &CountryCode,
        steward: Slug,
        metadata: &Metadata,
    ) -> Result<Committed, CommandError<AuthorityError>> {
        self.executor
            .execute(
                country.as_str(),
                &AuthorityCommand::Assign(steward),
                metadata,
            )
            .await
    }

    /// Adds a contact to a Party; without an id it gets the next free one
    /// (read from the store just before). Returns the commit and the id.
    ///
    /// # Errors
    /// [`CommandError::Rejected`] when the country is unknown or a rule is
    /// broken (a second focal point, an id in use — also when a concurrent
    /// addition took the id chosen here).
    pub async fn add_contact(
        &self,
        country: &CountryCode,
        mut command: AddContact,
        metadata: &Metadata,
    ) -> Result<(Committed, String), CommandError<AuthorityError>> {
        if let Some(earlier) = self.executor.replay(metadata).await? {
            // A retried Idempotency-Key: the contact that commit added.
            let id = self
                .executor
                .last_up_to(country.as_str(), earlier.sequence, |event| match event {
                    AuthorityEvent::ContactAdded(added) => Some(added.contact.id.clone()),
                    _ => None,
                })
                .await?
                .unwrap_or_default();
            return Ok((earlier, id));
        }
        if command.contact.id.is_none() {
            let state = self.current(country).await?;
            command.contact.id = Some(state.next_contact_id());
        }
        let id = command.contact.id.clone().unwrap_or_default();
        let committed = self
            .executor
            .execute(
                country.as_str(),
                &AuthorityCommand::AddContact(command),
                metadata,
            )
            .await?;
        Ok((committed, id))
    }

    /// The id of the proposal the commit ending at `sequence` made (for a
    /// retried `Idempotency-Key`).
    ///
    /// # Errors
    /// [`CommandError::Infrastructure`] when the store cannot be read.
    pub async fn proposal_made_by(
        &self,
        country: &CountryCode,
        sequence: i64,
    ) -> Result<Option<String>, CommandError<AuthorityError>> {
        self.executor
            .last_up_to(country.as_str(), sequence, |event| match event {
                AuthorityEvent::ChangeProposed(proposed) => Some(proposed.proposal_id.clone()),
                _ => None,
            })
            .await
    }

    /// Withdraws a contact with a reason (history keeps it).
    ///
    /// # Errors
    /// [`CommandError::Rejected`] for an unknown country or contact, or no reason.
    pub async fn remove_contact(
        &self,
        country: &CountryCode,
        command: RemoveContact,
        metadata: &Metadata,
    ) -> Result<Committed, CommandError<AuthorityError>> {
        self.executor
            .execute(
                country.as_str(),
                &AuthorityCommand::RemoveContact(command),
                metadata,
            )
            .await
    }

    /// Makes a competent authority the Party's primary one.
    ///
    /// # Errors
    /// [`CommandError::Rejected`] for an unknown contact, a focal point, or
    /// the authority that is primary already.
    pub async fn designate_primary(
        &self,
        country: &CountryCode,
        command: DesignatePrimary,
        metadata: &Metadata,
    ) -> Result<Committed, CommandError<AuthorityError>> {
        self.executor
            .execute(
                country.as_str(),
                &AuthorityCommand::DesignatePrimary(command),
                metadata,
            )
            .await
    }

    /// Retires a record created in error (of a code that is not a Party).
    ///
    /// # Errors
    /// [`CommandError::Rejected`] for a Party's record, a missing reason or
    /// a record that is not registered.
    pub async fn retire(
        &self,
        country: &CountryCode,
        command: RetireAuthority,
        metadata: &Metadata,
    ) -> Result<Committed, CommandError<AuthorityError>> {
        self.executor
            .execute(
                country.as_str(),
                &AuthorityCommand::Retire(command),
                metadata,
            )
            .await
    }

    /// The codes of every record ever registered.
    ///
    /// # Errors
    /// [`StoreError`] when the store cannot be read.
    pub async fn registered_codes(&self) -> Result<Vec<String>, crate::store::StoreError> {
        const SQL: &str = "SELECT DISTINCT aggregate_id FROM events WHERE aggregate_type = 'authority' ORDER BY aggregate_id";
        let codes = match &self.backend {
            Backend::Postgres(pool) => sqlx::query_scalar(SQL).fetch_all(pool).await,
            Backend::Sqlite(pool) => sqlx::query_scalar(SQL).fetch_all(pool).await,
        };
        codes.map_err(crate::store::StoreError::Database)
    }

    /// The record's current state by the event store (for the write side only;
    /// reads for clients come from projections).
    ///
    /// # Errors
    /// [`CommandError::Infrastructure`] when the store cannot be read.
    pub async fn current(
        &self,
        country: &CountryCode,
    ) -> Result<Authority, CommandError<AuthorityError>> {
        self.executor.load(country.as_str()).await
    }
}
