/**
 * Data exchange between tasks: buffers, channels, input gates, record writers, barriers and
 * watermarks, the in-memory shuffle.
 *
 * <p>Layer 4 of 15 in sluice-runtime (network; docs/architecture.md). May use the packages of the
 * layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code rpc.remote}, {@code
 * storage}, and of its own layer: {@code network.netty}. Uses no other package of this module
 * today. Never a package of a layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.network;
