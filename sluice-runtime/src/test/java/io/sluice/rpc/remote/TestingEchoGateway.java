package io.sluice.rpc.remote;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/** A local {@link EchoGateway} that records the one-way messages it got. Thread-safe. */
final class TestingEchoGateway implements EchoGateway {
    final List<String> recorded = new CopyOnWriteArrayList<>();
    final List<CompletableFuture<String>> neverAnswered = new CopyOnWriteArrayList<>();
    private final String name;
    volatile Supplier<Throwable> failure = () -> new IllegalArgumentException("bad argument");

    TestingEchoGateway(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public CompletableFuture<String> echo(String text) {
        return CompletableFuture.completedFuture(name + ":" + text);
    }

    @Override
    public void record(String text) {
        recorded.add(text);
    }

    @Override
    public CompletableFuture<String> never() {
        CompletableFuture<String> f = new CompletableFuture<>();
        neverAnswered.add(f);
        return f;
    }

    @Override
    public CompletableFuture<byte[]> bytes(int size) {
        return CompletableFuture.completedFuture(new byte[size]);
    }

    @Override
    public CompletableFuture<Integer> length(byte[] data) {
        return CompletableFuture.completedFuture(data.length);
    }

    @Override
    public CompletableFuture<String> callBack(EchoGateway caller, String text) {
        return caller.echo(text);
    }

    @Override
    public CompletableFuture<EchoGateway> returnIt(EchoGateway gateway) {
        return CompletableFuture.completedFuture(gateway);
    }

    @Override
    public CompletableFuture<String> typeOf(Object value) {
        return CompletableFuture.completedFuture(value == null ? "null" : value.getClass().getName());
    }

    @Override
    public CompletableFuture<String> fail() {
        return CompletableFuture.failedFuture(failure.get());
    }
}
