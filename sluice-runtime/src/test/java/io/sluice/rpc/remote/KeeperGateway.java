package io.sluice.rpc.remote;

import java.util.concurrent.CompletableFuture;

/** A gateway of the fencing tests: keeps a gateway it is given, calls it later, and has one unfenced method. */
public interface KeeperGateway {

    /** Answers whatever fencing token the call carries. */
    @Unfenced
    CompletableFuture<String> whoLeads();

    /** Keeps {@code gateway} (a proxy when it came from another process). */
    CompletableFuture<String> keep(EchoGateway gateway);

    /** Calls {@code echo(text)} on the gateway kept. */
    CompletableFuture<String> callKept(String text);
}
