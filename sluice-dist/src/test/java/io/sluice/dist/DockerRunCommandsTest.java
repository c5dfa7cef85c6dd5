package io.sluice.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.cli.SluiceCli;
import io.sluice.config.Configuration;
import io.sluice.rest.RestOptions;
import io.sluice.rest.RestServerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.ParseResult;

/**
 * The {@code docker run} commands the project documents for its image ({@code deploy/docker/Dockerfile}'s
 * comment and {@code docs/deployment.md}) start what they claim: each parses as a {@code sluice} command
 * line, and each that serves REST off loopback reads its token from a file mounted read-only under
 * {@code /run/secrets} (where Docker puts secrets) through {@code rest.auth.token-file}, never from an
 * inline {@code rest.auth.token} nor with unauthenticated access allowed; with a stand-in for that file its
 * settings pass {@link RestServerConfig} (which refuses 0.0.0.0 without a token). There is no Docker
 * daemon where Sluice is built, so the image itself is not run; these are the commands a user copies.
 * Each check also runs on a broken command, to show it fails.
 */
class DockerRunCommandsTest {
    private static final Path MODULE = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    private static final Path DOCKERFILE = MODULE.resolveSibling("deploy").resolve("docker").resolve("Dockerfile");
    private static final Path DEPLOYMENT_DOC = MODULE.resolveSibling("docs").resolve("deployment.md");
    /** Options of {@code docker run} that take a value (the next argument). */
    private static final Set<String> DOCKER_OPTIONS_WITH_VALUE = Set.of("-p", "--publish", "-v", "--volume", "-e",
            "--env", "--name", "--network", "--mount", "-w", "--workdir", "-u", "--user", "--env-file");
    private static final Set<String> SERVING_COMMANDS = Set.of("cluster", "jobmanager");

    @TempDir
    Path dir;

    /** A {@code docker run} command: its own options, the image, and the arguments given to {@code sluice}. */
    record DockerRun(String source, List<String> dockerOptions, String image, List<String> sluiceArgs) {
        /** The container path of each {@code -v host:container[:options]} mount, with its options. */
        List<String[]> volumes() {
            List<String[]> out = new ArrayList<>();
            for (int i = 0; i < dockerOptions.size(); i++) {
                if (dockerOptions.get(i).equals("-v") || dockerOptions.get(i).equals("--volume")) {
                    String[] parts = dockerOptions.get(i + 1).split(":");
                    out.add(new String[] {parts[1], parts.length > 2 ? parts[2] : ""});
                }
            }
            return out;
        }
    }

    @Test
    void theDocumentedCommandsServeRestOffLoopbackOnlyWithATokenFromAMountedSecretFile() throws IOException {
        List<DockerRun> runs = new ArrayList<>(dockerRuns(DOCKERFILE.toString(), commentLines(Files.readString(DOCKERFILE))));
        runs.addAll(dockerRuns(DEPLOYMENT_DOC.toString(), shellBlockLines(Files.readString(DEPLOYMENT_DOC))));
        assertThat(runs).as("docker run commands in the Dockerfile and deployment.md").isNotEmpty();
        int serving = 0;
        for (DockerRun run : runs) {
            if (check(run)) {
                serving++;
            }
        }
        assertThat(serving).as("documented commands that serve REST from the container").isPositive();
    }

    @Test
    void aServingCommandWithoutATokenOrWithItInlineOrOutsideAReadOnlySecretMountFails() {
        String image = "sluice:0.1.0-SNAPSHOT";
        DockerRun noToken = run(List.of("-p", "8081:8081"), image, "cluster", "-D", "rest.address=0.0.0.0");
        assertThatThrownBy(() -> check(noToken)).hasMessageContaining("rest.auth.token-file");
        DockerRun inline = run(List.of("-p", "8081:8081"), image, "cluster", "-D", "rest.address=0.0.0.0", "-D",
                "rest.auth.token=swordfish");
        assertThatThrownBy(() -> check(inline)).hasMessageContaining("rest.auth.token");
        DockerRun open = run(List.of("-p", "8081:8081"), image, "jobmanager", "-D", "rest.address=0.0.0.0", "-D",
                "rest.auth.allow-unauthenticated=true");
        assertThatThrownBy(() -> check(open)).hasMessageContaining("allow-unauthenticated");
        DockerRun writable = run(List.of("-v", "/tmp/t:/run/secrets/sluice-rest-token"), image, "cluster", "-D",
                "rest.address=0.0.0.0", "-D", "rest.auth.token-file=/run/secrets/sluice-rest-token");
        assertThatThrownBy(() -> check(writable)).hasMessageContaining("read-only");
        DockerRun unmounted = run(List.of(), image, "cluster", "-D", "rest.address=0.0.0.0", "-D",
                "rest.auth.token-file=/run/secrets/sluice-rest-token");
        assertThatThrownBy(() -> check(unmounted)).hasMessageContaining("no -v mount");
        DockerRun mistyped = run(List.of(), image, "cluster", "--slotz", "2");
        assertThatThrownBy(() -> check(mistyped)).hasMessageContaining("--slotz");
    }

    private static DockerRun run(List<String> options, String image, String... sluiceArgs) {
        return new DockerRun("a broken example", options, image, List.of(sluiceArgs));
    }

    /**
     * Checks one command; returns whether it serves REST off loopback from the container.
     *
     * @throws AssertionError naming the command and what is wrong
     */
    private boolean check(DockerRun run) throws IOException {
        String where = run.source() + ": docker run " + String.join(" ", run.dockerOptions()) + " " + run.image() + " "
                + String.join(" ", run.sluiceArgs());
        assertThat(run.image()).as("the image of %s", where).startsWith("sluice");
        ParseResult parsed;
        try {
            parsed = SluiceCli.commandLine().parseArgs(run.sluiceArgs().toArray(String[]::new));
        } catch (RuntimeException e) {
            throw new AssertionError("not a sluice command line: " + where + ": " + e.getMessage(), e);
        }
        if (!parsed.hasSubcommand() || !SERVING_COMMANDS.contains(parsed.subcommand().commandSpec().name())) {
            return false;
        }
        Configuration settings = new Configuration();
        Map<String, String> d = parsed.subcommand().matchedOptionValue("-D", Map.<String, String>of());
        d.forEach(settings::setString);
        String address = settings.get(RestOptions.ADDRESS);
        if (RestServerConfig.fromConfiguration(new Configuration().setString(RestOptions.ADDRESS.key(), address)
                .setString(RestOptions.AUTH_TOKEN.key(), "t")).onLoopback()) {
            return false; // reachable from inside the container only
        }
        assertThat(settings.get(RestOptions.ALLOW_UNAUTHENTICATED)).as("rest.auth.allow-unauthenticated in %s", where)
                .isFalse();
        assertThat(settings.get(RestOptions.AUTH_TOKEN)).as("rest.auth.token in %s: a token belongs in a secret file,"
                + " read through rest.auth.token-file", where).isEmpty();
        String tokenFile = settings.get(RestOptions.AUTH_TOKEN_FILE);
        assertThat(tokenFile).as("rest.auth.token-file in %s, which serves REST on %s", where, address).isNotEmpty();
        assertThat(tokenFile).as("rest.auth.token-file in %s: where Docker puts secrets", where).startsWith("/run/secrets/");
        String[] mount = run.volumes().stream().filter(v -> v[0].equals(tokenFile)).findFirst()
                .orElseThrow(() -> new AssertionError("rest.auth.token-file " + tokenFile + " of " + where
                        + " is in no -v mount of the command"));
        assertThat(mount[1]).as("options of the mount of %s in %s: read-only", tokenFile, where).contains("ro");
        Configuration standIn = settings.copy().setString(RestOptions.AUTH_TOKEN_FILE.key(),
                Files.writeString(dir.resolve("token"), "stand-in\n").toString());
        assertThat(RestServerConfig.fromConfiguration(standIn).authToken()).isEqualTo("stand-in");
        return true;
    }

    // ---- reading the commands

    /** The Dockerfile's comment lines, without {@code #} and one space. */
    private static List<String> commentLines(String dockerfile) {
        return dockerfile.lines().filter(l -> l.startsWith("#")).map(l -> l.substring(1).strip()).toList();
    }

    /** The lines of the markdown's {@code bash}/{@code sh} code blocks. */
    private static List<String> shellBlockLines(String markdown) {
        List<String> out = new ArrayList<>();
        boolean in = false;
        for (String line : markdown.lines().toList()) {
            if (line.startsWith("```")) {
                in = !in && (line.equals("```bash") || line.equals("```sh"));
                continue;
            }
            if (in) {
                out.add(line.strip());
            }
        }
        return out;
    }

    /** The {@code docker run} commands in {@code lines}, continuation lines ({@code \}) joined. */
    private static List<DockerRun> dockerRuns(String source, List<String> lines) {
        List<DockerRun> runs = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            StringBuilder command = new StringBuilder(lines.get(i));
            while (command.toString().endsWith("\\") && i + 1 < lines.size()) {
                command.setLength(command.length() - 1);
                command.append(' ').append(lines.get(++i));
            }
            List<String> words = words(command.toString().replaceAll("\\s#.*$", ""));
            if (words.size() > 2 && words.get(0).equals("docker") && words.get(1).equals("run")) {
                int w = 2;
                List<String> options = new ArrayList<>();
                while (w < words.size() && words.get(w).startsWith("-")) {
                    options.add(words.get(w));
                    if (DOCKER_OPTIONS_WITH_VALUE.contains(words.get(w))) {
                        options.add(words.get(++w));
                    }
                    w++;
                }
                runs.add(new DockerRun(source, options, words.get(w), words.subList(w + 1, words.size())));
            }
        }
        return runs;
    }

    /** Splits a shell command into words: whitespace separates, double and single quotes group. */
    private static List<String> words(String command) {
        List<String> out = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        char quote = 0;
        boolean any = false;
        for (char c : command.toCharArray()) {
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
                any = true;
            } else if (Character.isWhitespace(c)) {
                if (any || word.length() > 0) {
                    out.add(word.toString());
                    word.setLength(0);
                    any = false;
                }
            } else {
                word.append(c);
            }
        }
        if (any || word.length() > 0) {
            out.add(word.toString());
        }
        return out;
    }
}
