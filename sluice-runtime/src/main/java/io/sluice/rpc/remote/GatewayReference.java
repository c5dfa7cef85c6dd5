package io.sluice.rpc.remote;

import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What goes over the wire in place of a gateway object (an argument or result whose type is a
 * gateway interface): where it is exposed, under which endpoint name, the gateway interfaces it
 * implements, the fencing token its calls carry ({@code null}: unfenced), and the values of its
 * synchronous getters ({@code id()}, {@code numberOfSlots()}, ...), which the receiver's proxy
 * answers locally. Written and read only by {@link RpcSerialization}'s streams.
 */
record GatewayReference(RpcAddress address, String endpoint, List<String> interfaceNames, UUID fencingToken,
                        Map<String, Serializable> constants) implements Serializable {
}
