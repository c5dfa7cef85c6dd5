/**
 * The wire protocol between the components: the gateways ({@code DispatcherGateway}, {@code
 * JobMasterGateway}, {@code TaskExecutorGateway}) and every type their methods take or return
 * (task deployment descriptors, task states and metrics, job details and summaries, their
 * exceptions). Below both the callers and the implementations, so that neither needs the other.
 *
 * <p>Layer 7 of 15 in sluice-runtime (protocol; docs/architecture.md). May use the packages of the
 * layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code rpc.remote}, {@code
 * storage}, {@code network}, {@code network.netty}, {@code job}, {@code checkpoint}. Uses today:
 * {@code checkpoint}, {@code job}, {@code restart}, {@code rpc}. Never a package of a layer above;
 * no cycles (the module's architecture test checks both).
 */
package io.sluice.protocol;
