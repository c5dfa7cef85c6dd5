package io.sluice.cli.client;

import io.sluice.cli.common.DurationConverter;
import io.sluice.cli.common.ExitCodes;
import io.sluice.config.Durations;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.security.tls.PemFiles;
import io.sluice.security.tls.TlsIdentity;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options every command that talks to a cluster takes: where it is, its token, the CA to trust
 * for HTTPS, and the output format.
 */
public final class ClientOptions {
    /** How results are printed. */
    public enum Output { text, json }

    @Option(names = "--cluster", paramLabel = "URL", defaultValue = "${env:SLUICE_CLUSTER:-http://localhost:8081}",
            description = "REST address of the cluster. Default: $SLUICE_CLUSTER, else http://localhost:8081.")
    String cluster;

    @Option(names = "--token", paramLabel = "TOKEN",
            description = "Bearer token, when the cluster sets rest.auth.token.")
    String token;

    @Option(names = "--token-file", paramLabel = "FILE", description = "File whose first line is the bearer token.")
    Path tokenFile;

    @Option(names = "--ca-file", paramLabel = "FILE", defaultValue = "${env:SLUICE_CA_FILE}",
            description = "PEM file of the CA certificate(s) to trust for an https:// cluster whose certificate a"
                    + " private CA signed (rest.tls.*). Default: $SLUICE_CA_FILE, else the JVM's trusted CAs.")
    Path caFile;

    @Option(names = "--connect-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "${env:SLUICE_CONNECT_TIMEOUT:-10 s}",
            description = "How long opening a connection to the cluster may take, the TLS handshake included; one that"
                    + " takes longer is tried again, " + Connecting.ATTEMPTS + " attempts in all."
                    + " Default: $SLUICE_CONNECT_TIMEOUT, else 10 s.")
    Duration connectTimeout;

    @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "text",
            description = "text (for people) or json (the REST API's JSON, for scripts). Default: ${DEFAULT-VALUE}.")
    Output output;

    boolean json() {
        return output == Output.json;
    }

    RestClient client(CommandSpec spec) throws ClientException {
        URI uri;
        try {
            uri = new URI(cluster.endsWith("/") ? cluster : cluster + "/");
        } catch (URISyntaxException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--cluster': " + cluster
                    + "; it must be an address such as http://localhost:8081");
        }
        if (!List.of("http", "https").contains(String.valueOf(uri.getScheme())) || uri.getHost() == null) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--cluster': " + cluster
                    + "; it must be an address such as http://localhost:8081");
        }
        if (connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--connect-timeout': "
                    + Durations.describe(connectTimeout) + "; it must be positive, such as 10 s");
        }
        if (token != null && tokenFile != null) {
            throw new ParameterException(spec.commandLine(), "Give either --token or --token-file, not both");
        }
        String t = token;
        if (tokenFile != null) {
            try {
                t = Files.readAllLines(tokenFile).stream().findFirst().orElse("").strip();
            } catch (IOException e) {
                throw new ClientException(ExitCodes.NOT_FOUND, "Cannot read the token file " + tokenFile.toAbsolutePath()
                        + " (" + e + ")");
            }
            if (t.isEmpty()) {
                throw new ParameterException(spec.commandLine(), "The token file " + tokenFile.toAbsolutePath()
                        + " is empty; write the token on its first line");
            }
        }
        javax.net.ssl.SSLContext tls = null;
        if (caFile != null) {
            if (!"https".equals(uri.getScheme())) {
                throw new ParameterException(spec.commandLine(), "--ca-file is for an https:// cluster; --cluster is "
                        + cluster);
            }
            try {
                tls = new TlsIdentity(null, List.of(), PemFiles.certificates(caFile, "--ca-file")).jdkContext();
            } catch (IllegalConfigurationException e) {
                throw new ClientException(ExitCodes.NOT_FOUND, e.getMessage());
            }
        }
        PrintWriter err = spec.commandLine().getErr();
        return new RestClient(uri, t, tls, new Connecting(connectTimeout, Connecting.ATTEMPTS,
                notice -> err.println(spec.qualifiedName() + ": " + notice)));
    }
}
