package io.sluice.jar;

import io.sluice.api.execution.ExecutionContext;
import io.sluice.api.execution.JobExecutor;
import io.sluice.concurrent.DaemonThreadFactory;
import io.sluice.config.Configuration;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * A user program in a jar: its entry class (the manifest's {@code Main-Class}, or one named
 * explicitly) and the job graph its {@code main(String[])} builds.
 *
 * <p>{@link #captureJobGraph} runs {@code main} on a thread of its own (named
 * {@code sluice-program-<class>}) whose context class loader is the job's loader, with an
 * {@link ExecutionContext} bound to it: the first {@code env.execute(name)} hands over its graph
 * and ends {@code main} there with {@link GraphCaptured} (an {@link Error}, so that a program's
 * {@code catch (Exception e)} does not swallow it). Nothing the program does after
 * {@code execute} runs on the cluster.
 */
public final class PackagedProgram {
    private final Path jar;
    private final String jarName;
    private final String entryClass;

    private PackagedProgram(Path jar, String jarName, String entryClass) {
        this.jar = jar;
        this.jarName = jarName;
        this.entryClass = entryClass;
    }

    /**
     * The program in {@code jar} (shown as {@code jarName} in messages) with entry class
     * {@code explicitEntryClass}, or the manifest's {@code Main-Class} if that is null. Blocking (reads
     * the jar's manifest); fails with {@link JarException} {@code INVALID} if there is no entry class.
     */
    public static PackagedProgram of(Path jar, String jarName, String explicitEntryClass) throws IOException {
        if (explicitEntryClass != null && !explicitEntryClass.isBlank()) {
            return new PackagedProgram(jar, jarName, explicitEntryClass.strip());
        }
        String mainClass = null;
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            if (manifest != null) {
                mainClass = manifest.getMainAttributes().getValue("Main-Class");
            }
        } catch (IOException e) {
            throw new JarException(JarException.Kind.INVALID, "Could not read the jar " + jarName + " (" + e.getMessage()
                    + "); upload a valid jar file", e);
        }
        if (mainClass == null || mainClass.isBlank()) {
            throw new JarException(JarException.Kind.INVALID, "The jar " + jarName + " names no entry class: its manifest"
                    + " has no Main-Class; pass the class to run with --class (REST: entryClass)");
        }
        return new PackagedProgram(jar, jarName, mainClass.strip());
    }

    public Path jar() {
        return jar;
    }

    public String entryClass() {
        return entryClass;
    }

    /** Thrown by {@code execute} inside {@link #captureJobGraph} to end the program's {@code main} once its graph is taken. */
    public static final class GraphCaptured extends Error {
        GraphCaptured() {
            super("The job graph was handed to the cluster; the rest of main does not run there", null, false, false);
        }
    }

    /**
     * Runs the program's {@code main(args)} with {@code loader} and {@code runConfiguration} and
     * completes with the graph of its first {@code execute} call, renamed to {@code jobId}. Fails with
     * {@link JarException}: {@code INVALID} when the class or its {@code main} is missing,
     * {@code PROGRAM_FAILED} when {@code main} threw before {@code execute}, returned without calling it,
     * or did not call it within {@code timeout} (its thread is then interrupted). Returns at once.
     */
    public CompletableFuture<JobGraph> captureJobGraph(ClassLoader loader, List<String> args,
                                                       Configuration runConfiguration, JobId jobId, Duration timeout) {
        return captureJobGraph(loader, args, new Configuration(), runConfiguration, jobId, timeout);
    }

    /** As above, with {@code defaults} (the cluster's job settings) under the program's own configuration. */
    public CompletableFuture<JobGraph> captureJobGraph(ClassLoader loader, List<String> args, Configuration defaults,
                                                       Configuration runConfiguration, JobId jobId, Duration timeout) {
        CompletableFuture<JobGraph> result = new CompletableFuture<>();
        AtomicReference<JobGraph> captured = new AtomicReference<>();
        JobExecutor capturing = graph -> {
            captured.compareAndSet(null, graph.withJobId(jobId));
            throw new GraphCaptured();
        };
        ExecutionContext context = new ExecutionContext(capturing, defaults, runConfiguration);
        String[] argv = args.toArray(String[]::new);
        Runnable program = () -> {
            Throwable failure = null;
            try {
                Method main = mainMethod(loader);
                context.call(() -> main.invoke(null, (Object) argv));
            } catch (InvocationTargetException e) {
                failure = e.getCause();
            } catch (Throwable t) {
                failure = t;
            }
            Thread.currentThread().setContextClassLoader(null); // an ended thread keeps no job loader alive
            JobGraph graph = captured.get();
            if (graph != null) {
                result.complete(graph);
            } else if (failure instanceof JarException je) {
                result.completeExceptionally(je);
            } else if (failure != null) {
                result.completeExceptionally(new JarException(JarException.Kind.PROGRAM_FAILED, "The main method of "
                        + entryClass + " (jar " + jarName + ") threw " + failure + " before it built a job", failure));
            } else {
                result.completeExceptionally(new JarException(JarException.Kind.PROGRAM_FAILED, entryClass
                        + ".main (jar " + jarName + ") returned without calling execute(...) on a"
                        + " StreamExecutionEnvironment, so there is no job to run"));
            }
        };
        // the program is the job's code: its thread has the job's class loader
        Thread thread = DaemonThreadFactory.named("sluice-program-" + entryClass).withContextClassLoader(loader)
                .newThread(program);
        thread.start();
        // orTimeout removes its timer when the program ends first, so nothing keeps the (ended) program
        // thread, whose context class loader is the job's, reachable after that.
        return result.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).exceptionallyCompose(error -> {
            if (error instanceof java.util.concurrent.TimeoutException) {
                thread.interrupt();
                return CompletableFuture.failedFuture(new JarException(JarException.Kind.PROGRAM_FAILED, entryClass
                        + ".main (jar " + jarName + ") did not call execute(...) within " + timeout.toSeconds()
                        + " s; it was interrupted. Build the job in main and call env.execute(name) without waiting"
                        + " for anything first"));
            }
            return CompletableFuture.failedFuture(error);
        });
    }

    private Method mainMethod(ClassLoader loader) {
        Class<?> c;
        try {
            c = Class.forName(entryClass, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new JarException(JarException.Kind.INVALID, "The entry class " + entryClass + " is not in the jar "
                    + jarName + " (" + e + "); check the Main-Class of its manifest or the --class given", e);
        }
        Method main;
        try {
            main = c.getMethod("main", String[].class);
        } catch (NoSuchMethodException e) {
            throw new JarException(JarException.Kind.INVALID, "The entry class " + entryClass + " (jar " + jarName
                    + ") has no public static void main(String[] args)", e);
        }
        if (!Modifier.isStatic(main.getModifiers())) {
            throw new JarException(JarException.Kind.INVALID, "The main method of " + entryClass + " (jar " + jarName
                    + ") is not static");
        }
        return main;
    }

}
