/**
 * Blob storage: the {@code BlobStore} that checkpoints and HA data are written to, the local file
 * store, the factory lookup for other schemes, instrumentation.
 *
 * <p>Layer 3 of 15 in sluice-runtime (storage; docs/architecture.md). May use the packages of the
 * layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code rpc.remote}. Uses today:
 * {@code metrics}, {@code rpc}. Never a package of a layer above; no cycles (the module's
 * architecture test checks both).
 */
package io.sluice.storage;
