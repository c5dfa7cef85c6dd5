package io.sluice.cluster.process;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.checkpoint.CheckpointStorageRegistry;
import io.sluice.concurrent.DaemonThreadFactory;
import io.sluice.config.Configuration;
import io.sluice.jar.LiveJobClassLoaders;
import io.sluice.protocol.JobMasterGateway;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.rpc.MainThreadMetrics;
import io.sluice.rpc.remote.RpcService;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.security.tls.InternalTls;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a cluster process (job manager or task manager) started, closed in the reverse order: the
 * scaffolding both share (I/O executor, metrics, checkpoint storages, main threads, the RPC
 * server). A process adds each part as it starts it; if starting fails, {@link #close()} stops what
 * was started. Not thread-safe: used by the thread that starts and closes the process.
 */
final class ProcessResources implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessResources.class);

    private final String process;
    private final List<AutoCloseable> resources = new ArrayList<>();
    /** The internal TLS of the process once read; {@code tlsRead} says whether it was (null: plain TCP). */
    private InternalTls tls;
    private boolean tlsRead;

    /** @param process what the resources belong to, for the log of a part that fails to close ("job manager jm-1") */
    ProcessResources(String process) {
        this.process = process;
    }

    /** Closes {@code resource} when the process closes (before everything added earlier). */
    void add(AutoCloseable resource) {
        resources.add(resource);
    }

    /** The process's I/O executor (daemon threads {@code sluice-io-*}), shut down on close; binds the main-thread metrics. */
    ExecutorService ioExecutor(MeterRegistry metrics) {
        ExecutorService io = Executors.newCachedThreadPool(DaemonThreadFactory.numbered("sluice-io-"));
        add(io::shutdown);
        MainThreadMetrics.bind(metrics);
        LiveJobClassLoaders.bind(metrics);
        return io;
    }

    /** The checkpoint storages of the jobs, from the configuration, closed on close. */
    CheckpointStorageRegistry checkpointStorages(MeterRegistry metrics, Configuration configuration) {
        CheckpointStorageRegistry storages = new CheckpointStorageRegistry(metrics,
                java.util.function.UnaryOperator.identity(), configuration);
        add(storages);
        return storages;
    }

    /** A main thread named {@code name}, stopped on close. */
    DedicatedMainThreadExecutor mainThread(String name) {
        DedicatedMainThreadExecutor main = new DedicatedMainThreadExecutor(name);
        add(main::close);
        return main;
    }

    /**
     * The mutual TLS of the process's RPC and data connections ({@code security.internal.tls.*}), read
     * once; {@code null} when it is off.
     */
    InternalTls internalTls(Configuration configuration) {
        if (!tlsRead) {
            tls = InternalTls.fromConfiguration(configuration);
            tlsRead = true;
        }
        return tls;
    }

    /**
     * The RPC server on {@code host:port} (0: a free port) with the cluster's gateway interfaces and
     * the process's {@link #internalTls}, stopped on close.
     */
    RpcService rpcService(Configuration configuration, String host, int port, String advertisedHost) {
        RpcService.registerGatewayInterface(JobMasterGateway.class);
        RpcService.registerGatewayInterface(TaskExecutorGateway.class);
        RpcService rpc = RpcService.builder().bind(host, port).advertisedHost(advertisedHost)
                .configuration(configuration).tls(internalTls(configuration)).start();
        add(rpc);
        return rpc;
    }

    /** Closes every part, the last added first; a part that fails is logged and the others still close. Idempotent. */
    @Override
    public void close() {
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) {
                LOG.warn("Could not stop part of {} cleanly: {}", process, e.toString());
            }
        }
        resources.clear();
    }
}
