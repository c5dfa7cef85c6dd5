package io.sluice.cluster.membership;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Objects;

/**
 * Where to reach a cluster-mode job manager, as encoded in its dispatcher-election contender id,
 * so that task managers and standbys learn the leader's address from leader retrieval alone:
 * {@code sluice-jm://host:6123/jobmanager-1?rest=http://host:8081}.
 *
 * @param id      the job manager's id (its contender id without the address)
 * @param rpcHost host of its RPC server
 * @param rpcPort port of its RPC server (1..65535)
 * @param restUrl base URL of its REST API, or {@code null} when it serves none
 */
public record JobManagerAddress(String id, String rpcHost, int rpcPort, String restUrl) {
    public static final String SCHEME = "sluice-jm";

    public JobManagerAddress {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(rpcHost, "rpcHost");
        if (id.isBlank() || id.contains("/") || id.contains("?")) {
            throw new IllegalArgumentException("A job manager id must be non-empty and contain neither '/' nor '?', got '"
                    + id + "'");
        }
        if (rpcHost.isBlank()) {
            throw new IllegalArgumentException("The RPC host of job manager " + id + " is empty");
        }
        if (rpcPort < 1 || rpcPort > 65535) {
            throw new IllegalArgumentException("The RPC port of job manager " + id + " must be 1..65535, got " + rpcPort);
        }
    }

    /** This address as a contender id: {@code sluice-jm://host:port/id[?rest=url]}. */
    public String encode() {
        String host = rpcHost.contains(":") && !rpcHost.startsWith("[") ? "[" + rpcHost + "]" : rpcHost;
        return SCHEME + "://" + host + ":" + rpcPort + "/" + id + (restUrl == null ? "" : "?rest=" + restUrl);
    }

    /** Whether {@code contenderId} looks like an encoded address (it may still fail to {@link #parse}). */
    public static boolean isEncoded(String contenderId) {
        return contenderId != null && contenderId.startsWith(SCHEME + "://");
    }

    /**
     * Reads an address written by {@link #encode()}.
     *
     * @throws IllegalArgumentException naming the text and what is wrong with it
     */
    public static JobManagerAddress parse(String text) {
        if (text == null || !isEncoded(text)) {
            throw new IllegalArgumentException("'" + text + "' is not a job manager address: expected "
                    + SCHEME + "://<host>:<port>/<id>[?rest=<url>], for example "
                    + SCHEME + "://jm-0:6123/jobmanager-0?rest=http://jm-0:8081 (is the leader a job manager of an"
                    + " older Sluice, or a local cluster that does not serve RPC?)");
        }
        String rest = null;
        String main = text;
        int q = text.indexOf('?');
        if (q >= 0) {
            main = text.substring(0, q);
            String query = text.substring(q + 1);
            if (!query.startsWith("rest=") || query.length() == "rest=".length()) {
                throw new IllegalArgumentException("Job manager address '" + text + "': the query must be rest=<url>, got '"
                        + query + "'");
            }
            rest = query.substring("rest=".length());
        }
        URI uri;
        try {
            uri = new URI(main);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("Job manager address '" + text + "' is malformed: " + e.getMessage(), e);
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("Job manager address '" + text + "' has no host (expected "
                    + SCHEME + "://<host>:<port>/<id>)");
        }
        if (uri.getPort() < 0) {
            throw new IllegalArgumentException("Job manager address '" + text + "' has no port (expected "
                    + SCHEME + "://<host>:<port>/<id>)");
        }
        String path = uri.getPath();
        if (path == null || path.length() <= 1) {
            throw new IllegalArgumentException("Job manager address '" + text + "' has no job manager id (expected "
                    + SCHEME + "://<host>:<port>/<id>)");
        }
        String host = uri.getHost();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            return new JobManagerAddress(path.substring(1), host, uri.getPort(), rest);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Job manager address '" + text + "': " + e.getMessage(), e);
        }
    }

    /** {@code host:port} of the RPC server. */
    public String rpcAddress() {
        return (rpcHost.contains(":") ? "[" + rpcHost + "]" : rpcHost) + ":" + rpcPort;
    }

    @Override
    public String toString() {
        return encode();
    }
}
