/**
 * Remote RPC over Netty: gateways as proxies, fencing tokens, endpoint registry, the frame
 * protocol, Java serialization of calls, timeouts and errors. {@code RpcService} is the public
 * face; behind it the threads ({@code RpcThreads}), the server ({@code RpcServer}) and the dispatch
 * of arriving calls ({@code InboundCalls}), the outgoing connections ({@code RpcConnections},
 * {@code RpcConnection}), calls ({@code OutboundCalls}) and answers ({@code InboundAnswers}).
 *
 * <p>Layer 2 of 15 in sluice-runtime (remote RPC; docs/architecture.md). May use the packages of
 * the layers below: {@code rpc}, {@code restart}, {@code metrics}. Uses no other package of this
 * module today. Never a package of a layer above; no cycles (the module's architecture test checks
 * both).
 */
package io.sluice.rpc.remote;
