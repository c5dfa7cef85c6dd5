package io.sluice.rpc.remote;

import java.util.concurrent.CompletableFuture;

/** The gateway of the RPC tests (a gateway by its name: an {@code io.sluice} interface ending in Gateway). */
public interface EchoGateway {
    String name();

    CompletableFuture<String> echo(String text);

    /** One-way. */
    void record(String text);

    /** Never answers. */
    CompletableFuture<String> never();

    CompletableFuture<byte[]> bytes(int size);

    CompletableFuture<Integer> length(byte[] data);

    /** Calls {@code caller.echo(text)} and answers with what it got. */
    CompletableFuture<String> callBack(EchoGateway caller, String text);

    /** Answers with the gateway it got. */
    CompletableFuture<EchoGateway> returnIt(EchoGateway gateway);

    /** The class name of what it got. */
    CompletableFuture<String> typeOf(Object value);

    /** Fails with {@code failure}, made by the implementation. */
    CompletableFuture<String> fail();
}
