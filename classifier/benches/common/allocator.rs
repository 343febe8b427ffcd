//! The allocator the `basel` binary runs with (jemalloc, `api/src/main.rs`),
//! shared by the criterion bench and the `probe` example (included with
//! `#[path]`), so that in-process figures measure the classifier as the
//! service runs it. Its options come from `JEMALLOC_SYS_WITH_MALLOC_CONF`
//! in `.cargo/config.toml`, as for the service.

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;
