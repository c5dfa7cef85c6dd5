package io.sluice.rpc.remote;

import java.io.Serializable;

/**
 * What goes over the wire in place of a {@link java.util.Optional}, which is not serializable
 * (gateways answer {@code CompletableFuture<Optional<T>>}); {@code value} is {@code null} for an
 * empty one. Written and read only by {@link RpcSerialization}'s streams.
 */
record OptionalValue(Object value) implements Serializable {
}
