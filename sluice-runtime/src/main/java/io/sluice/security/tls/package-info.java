/**
 * TLS for Sluice's connections: PEM keys and certificates read with the JDK ({@code PemFiles},
 * {@code TlsIdentity}), and the mutual TLS of the RPC and data connections between the processes
 * of a cluster on Netty ({@code InternalTls}, {@code security.internal.tls.*}).
 *
 * <p>Layer 1 of 15 in sluice-runtime (main threads, policies; docs/architecture.md). Uses no other
 * package of this module. Never a package of a layer above; no cycles (the module's architecture
 * test checks both).
 */
package io.sluice.security.tls;
