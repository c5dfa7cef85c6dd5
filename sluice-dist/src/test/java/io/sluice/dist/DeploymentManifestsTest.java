package io.sluice.dist;

import static io.sluice.dist.Manifests.at;
import static io.sluice.dist.Manifests.containers;
import static io.sluice.dist.Manifests.list;
import static io.sluice.dist.Manifests.map;
import static io.sluice.dist.Manifests.podLabels;
import static io.sluice.dist.Manifests.selects;
import static io.sluice.dist.Manifests.string;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.cli.cluster.ConfigFile;
import io.sluice.config.ConfigOption;
import io.sluice.config.Configuration;
import io.sluice.config.ConfigurationValidator;
import io.sluice.config.HighAvailabilityOptions;
import io.sluice.config.JobManagerOptions;
import io.sluice.config.KnownOptions;
import io.sluice.config.TaskManagerOptions;
import io.sluice.dist.Manifests.Resource;
import io.sluice.rest.RestOptions;
import io.sluice.rest.RestServerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deployment artifacts agree with each other and with Sluice's configuration: the Kubernetes
 * manifests of {@code deploy/kubernetes} (kinds, required fields, labels and selectors, ports,
 * probes, Secret and ConfigMap references), the configuration they carry and the distribution's
 * {@code conf/sluice.yaml} (every key, also the commented-out ones, is a known option with a valid
 * value: {@link ConfigurationValidator} with the options of every module on this class path,
 * through the {@code ConfigOptionsProvider} SPI), and {@code deploy/docker/Dockerfile} (base image,
 * user, entry point, exposed ports). Each check also runs on a broken copy, to show it fails.
 */
class DeploymentManifestsTest {
    private static final Path MODULE = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    private static final Path KUBERNETES = MODULE.resolveSibling("deploy").resolve("kubernetes");
    private static final Path DOCKERFILE = MODULE.resolveSibling("deploy").resolve("docker").resolve("Dockerfile");
    private static final Path DIST_CONFIG = MODULE.resolve("src/dist/conf/sluice.yaml");

    private static final String CONFIG_MAP = "sluice-config";
    private static final String CONFIG_FILE = "sluice.yaml";
    private static final String JOB_MANAGER = "sluice-jobmanager";
    private static final String TASK_MANAGER = "sluice-taskmanager";
    private static final String REST_SERVICE = "sluice-rest";
    /** What a pod's {@code $(POD_IP)} stands for when its command line is checked. */
    private static final String SAMPLE_POD_IP = "10.1.2.3";

    private static final Map<String, String> API_VERSIONS = Map.of(
            "Service", "v1", "ConfigMap", "v1", "Secret", "v1",
            "Deployment", "apps/v1", "StatefulSet", "apps/v1", "PodDisruptionBudget", "policy/v1");

    /**
     * A commented-out entry: {@code # key: value}, a dotted lower-case key and its value, with an
     * optional trailing {@code # comment}.
     */
    private static final Pattern COMMENTED_ENTRY =
            Pattern.compile("^\\s*#\\s?([a-z][a-z0-9-]*(?:\\.[a-z0-9-]+)+):\\s+(.*?)\\s*(?:\\s#.*)?$");

    private static KnownOptions known;

    @TempDir
    Path dir;

    @BeforeAll
    static void discoverOptions() {
        known = KnownOptions.discover();
        // The modules whose options the manifests use must be on this class path, or every s3.* and
        // high-availability.zookeeper.* key would be reported as unknown for the wrong reason.
        assertThat(known.keys()).contains(RestOptions.PORT.key(), "s3.region", "high-availability.zookeeper.quorum");
    }

    // ---- the shipped files

    @Test
    void everyManifestParsesAndHasItsKindsRequiredFields() throws IOException {
        checkResources(shipped());
    }

    @Test
    void theManifestsDeployTheClusterOfIssue13() throws IOException {
        Manifests m = shipped();
        Resource jobManagers = m.one("Deployment", JOB_MANAGER);
        assertThat(at(jobManagers.content(), "spec", "replicas")).as("job manager replicas").isEqualTo(2);
        assertThat(args(onlyContainer(jobManagers))).first().isEqualTo("jobmanager");
        List<String> taskManagerArgs = args(onlyContainer(m.one("Deployment", TASK_MANAGER)));
        assertThat(taskManagerArgs).first().isEqualTo("taskmanager");
        assertThat(taskManagerArgs).contains("--slots");
        assertThat(Integer.parseInt(taskManagerArgs.get(taskManagerArgs.indexOf("--slots") + 1))).isPositive();
        m.one("StatefulSet", "zookeeper");
        m.one("Service", REST_SERVICE);
        m.one("Secret", "sluice-s3-credentials");
        m.one("Secret", "sluice-rest-token");
        assertThat(string(m.one("ConfigMap", CONFIG_MAP).content(), "data", CONFIG_FILE)).isNotBlank();
    }

    @Test
    void everyKeyOfTheConfigMapAndOfEveryCommandLineIsAKnownOptionWithAValidValue() throws IOException {
        checkConfiguration(shipped());
    }

    @Test
    void theConfigMapUsesZooKeeperAtTheServiceThatIsDeployed() throws IOException {
        Manifests m = shipped();
        Configuration c = clusterConfiguration(m);
        assertThat(c.get(HighAvailabilityOptions.TYPE)).isEqualTo("zookeeper");
        String quorum = c.getString("high-availability.zookeeper.quorum").orElseThrow();
        for (String server : quorum.split(",")) {
            String[] hostPort = server.split(":");
            Resource service = m.one("Service", hostPort[0]);
            assertThat(list(service.content(), "spec", "ports")).as("ports of %s", service)
                    .anySatisfy(p -> assertThat(at(p, "port")).isEqualTo(Integer.parseInt(hostPort[1])));
        }
        assertThat(c.get(RestOptions.ADDRESS)).as("rest.address: other pods and the kubelet's probes must reach it")
                .isEqualTo("0.0.0.0");
    }

    @Test
    void theJobManagersServeRestWithATokenFromASecretAndProbeAPathThatNeedsNone() throws IOException {
        checkRestToken(shipped());
    }

    @Test
    void containerPortsProbesAndServicesAgreeWithTheConfiguredPorts() throws IOException {
        checkPorts(shipped());
    }

    @Test
    void servicesAndDisruptionBudgetsSelectTheWorkloadsPods() throws IOException {
        checkSelectors(shipped());
    }

    @Test
    void secretsAndConfigMapsThatPodsReferToExist() throws IOException {
        checkReferences(shipped());
    }

    @Test
    void theDockerfileRunsTheDistributionAsANonRootUserAndExposesTheConfiguredPorts() throws IOException {
        checkDockerfile(Files.readString(DOCKERFILE), shipped());
    }

    @Test
    void theDistributionsConfigFileHoldsOnlyKnownKeysWithTheirDefaultsOrExamples() throws IOException {
        String text = Files.readString(DIST_CONFIG);
        checkDistributionConfig(text);
        assertThat(commentedEntries(text).keySet()).as("the keys a cluster deployment needs are in conf/sluice.yaml")
                .contains("high-availability.type", "high-availability.zookeeper.quorum",
                        "high-availability.storage-dir", "checkpoints.dir", "rest.port",
                        JobManagerOptions.RPC_HOST.key(), JobManagerOptions.RPC_PORT.key(),
                        TaskManagerOptions.HOST.key(), TaskManagerOptions.SLOTS.key());
        // As shipped it changes nothing: 'bin/sluice cluster' behaves as without a file.
        assertThat(ConfigFile.load(Files.writeString(dir.resolve("dist.yaml"), text)).toMap()).isEmpty();
    }

    @Test
    void theImageOfThePodsAndTheDockerfilesDefaultVersionAreThisVersion() throws IOException {
        String version = System.getProperty("sluice.version");
        assertThat(version).as("system property sluice.version (set by the pom)").isNotBlank();
        for (Resource w : sluiceWorkloads(shipped())) {
            assertThat(string(onlyContainer(w), "image")).as("image of %s", w).endsWith("sluice:" + version);
        }
        assertThat(dockerInstructions(Files.readString(DOCKERFILE)).get("ARG")).as("ARG of the Dockerfile")
                .contains("SLUICE_VERSION=" + version);
    }

    // ---- each check fails on a broken copy

    @Test
    void aMistypedKeyInTheConfigMapFailsNamingTheNearestKey() throws IOException {
        Manifests broken = shippedWith("20-configmap.yaml", "rest.port: 8081", "rest.prot: 8081");
        assertThatThrownBy(() -> checkConfiguration(broken)).hasMessageContaining("did you mean 'rest.port'");
    }

    @Test
    void aMistypedKeyInACommandLineFails() throws IOException {
        Manifests broken = shippedWith("50-taskmanager.yaml", "taskmanager.host=$(POD_IP)", "taskmanager.hots=$(POD_IP)");
        assertThatThrownBy(() -> checkConfiguration(broken)).hasMessageContaining("taskmanager.hots");
    }

    @Test
    void aRestPortThatDiffersFromTheContainerPortFails() throws IOException {
        Manifests broken = shippedWith("20-configmap.yaml", "rest.port: 8081", "rest.port: 8082");
        assertThatThrownBy(() -> checkPorts(broken)).hasMessageContaining("rest.port");
    }

    @Test
    void aProbeOnAnotherPortFails() throws IOException {
        String probe = "readinessProbe:\n            httpGet:\n              path: /dashboard/\n              port: ";
        Manifests broken = shippedWith("30-jobmanager.yaml", probe + "rest", probe + "8080");
        assertThatThrownBy(() -> checkPorts(broken)).hasMessageContaining("readinessProbe");
    }

    @Test
    void aServiceThatSelectsNoPodsFails() throws IOException {
        Manifests broken = shippedWith("40-rest-service.yaml", "    app.kubernetes.io/component: jobmanager\n  ports:",
                "    app.kubernetes.io/component: job-manager\n  ports:");
        assertThatThrownBy(() -> checkSelectors(broken)).hasMessageContaining(REST_SERVICE);
    }

    @Test
    void aSecretKeyThatIsNotInTheSecretFails() throws IOException {
        Manifests broken = shippedWith("10-s3-secret.yaml", "AWS_SECRET_ACCESS_KEY: replace", "AWS_SECRET_KEY: replace");
        assertThatThrownBy(() -> checkReferences(broken)).hasMessageContaining("AWS_SECRET_ACCESS_KEY");
    }

    @Test
    void restWithoutATokenFileOrWithUnauthenticatedAccessAllowedFails() throws IOException {
        Manifests noToken = shippedWith("20-configmap.yaml", "    rest.auth.token-file: /etc/sluice-rest-token/token\n", "");
        assertThatThrownBy(() -> checkRestToken(noToken)).hasMessageContaining("Refusing to serve the REST API on 0.0.0.0");
        Manifests allowed = shippedWith("20-configmap.yaml", "    rest.auth.token-file: /etc/sluice-rest-token/token\n",
                "    rest.auth.allow-unauthenticated: true\n");
        assertThatThrownBy(() -> checkRestToken(allowed)).hasMessageContaining("rest.auth.allow-unauthenticated");
        Manifests inline = shippedWith("20-configmap.yaml", "    rest.auth.token-file: /etc/sluice-rest-token/token\n",
                "    rest.auth.token: swordfish\n");
        assertThatThrownBy(() -> checkRestToken(inline)).hasMessageContaining("rest.auth.token-file");
    }

    @Test
    void aTokenFileOutsideTheMountedSecretOrAProbeOnTheApiFails() throws IOException {
        Manifests elsewhere = shippedWith("20-configmap.yaml", "rest.auth.token-file: /etc/sluice-rest-token/token",
                "rest.auth.token-file: /etc/sluice/token");
        assertThatThrownBy(() -> checkRestToken(elsewhere)).hasMessageContaining("/etc/sluice/token");
        Manifests wrongKey = shippedWith("15-rest-token-secret.yaml", "  token: replace", "  rest-token: replace");
        assertThatThrownBy(() -> checkRestToken(wrongKey)).hasMessageContaining("token");
        String probe = "readinessProbe:\n            httpGet:\n              path: ";
        Manifests apiProbe = shippedWith("30-jobmanager.yaml", probe + "/dashboard/", probe + "/v1/overview");
        assertThatThrownBy(() -> checkRestToken(apiProbe)).hasMessageContaining("readinessProbe");
    }

    @Test
    void aDockerfileExposingOtherPortsOrRunningAsRootFails() throws IOException {
        String broken = Files.readString(DOCKERFILE).replace("EXPOSE 8081 6123 6122 6121", "EXPOSE 8081 6123");
        assertThatThrownBy(() -> checkDockerfile(broken, shipped())).hasMessageContaining("EXPOSE");
        String asRoot = Files.readString(DOCKERFILE).replace("USER 10001:10001", "");
        assertThatThrownBy(() -> checkDockerfile(asRoot, shipped())).hasMessageContaining("USER");
    }

    @Test
    void aCommentedKeyThatIsUnknownOrNotTheDefaultFails() throws IOException {
        String text = Files.readString(DIST_CONFIG);
        assertThatThrownBy(() -> checkDistributionConfig(text.replace("# rest.port: 8081", "# rest.prot: 8081")))
                .hasMessageContaining("did you mean 'rest.port'");
        assertThatThrownBy(() -> checkDistributionConfig(text.replace("# rest.port: 8081", "# rest.port: 8082")))
                .hasMessageContaining("rest.port");
    }

    // ---- the checks

    /** Kinds and API versions, names, selectors matching templates, images and resource requests. */
    private static void checkResources(Manifests m) {
        assertThat(m.all()).as("resources in %s", KUBERNETES).isNotEmpty();
        Set<String> seen = new LinkedHashSet<>();
        for (Resource r : m.all()) {
            assertThat(API_VERSIONS).as("kinds used in %s", r.file()).containsKey(r.kind());
            assertThat(r.content().get("apiVersion")).as("apiVersion of %s", r).isEqualTo(API_VERSIONS.get(r.kind()));
            assertThat(r.name()).as("metadata.name in %s", r.file()).isNotBlank().matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
            assertThat(seen.add(r.kind() + "/" + r.name())).as("%s is defined once", r).isTrue();
        }
        for (Resource w : workloads(m)) {
            Map<String, Object> selector = map(w.content(), "spec", "selector", "matchLabels");
            assertThat(selects(selector, podLabels(w))).as("%s: spec.selector.matchLabels %s match the pod template's labels %s",
                    w, selector, podLabels(w)).isTrue();
            assertThat(containers(w)).as("containers of %s", w).isNotEmpty();
            for (Object c : containers(w)) {
                assertThat(string(c, "name")).as("container name in %s", w).isNotBlank();
                assertThat(string(c, "image")).as("image of %s", w).isNotBlank();
                assertThat(map(c, "resources", "requests")).as("resources.requests of %s", w).containsKeys("cpu", "memory");
            }
        }
        for (Resource s : m.ofKind("StatefulSet")) {
            Resource governing = m.one("Service", string(s.content(), "spec", "serviceName"));
            assertThat(string(governing.content(), "spec", "clusterIP")).as("%s is headless", governing).isEqualTo("None");
        }
        for (Resource s : m.ofKind("Service")) {
            assertThat(list(s.content(), "spec", "ports")).as("ports of %s", s).isNotEmpty()
                    .allSatisfy(p -> assertThat(at(p, "port")).isInstanceOf(Integer.class));
        }
        for (Resource p : m.ofKind("PodDisruptionBudget")) {
            assertThat(map(p.content(), "spec", "selector", "matchLabels")).as("selector of %s", p).isNotEmpty();
        }
    }

    /**
     * The effective configuration of every Sluice container (the ConfigMap's file, then its
     * {@code -D key=value} arguments) and the ConfigMap's commented-out entries pass validation.
     */
    private void checkConfiguration(Manifests m) {
        String file = string(m.one("ConfigMap", CONFIG_MAP).content(), "data", CONFIG_FILE);
        validate(commentedEntries(file), "commented-out entries of ConfigMap " + CONFIG_MAP);
        for (Resource w : sluiceWorkloads(m)) {
            for (Object c : containers(w)) {
                ConfigurationValidator.validate(containerConfiguration(m, c), known);
            }
        }
    }

    /**
     * The job managers' REST configuration passes Sluice's own check for an address off loopback
     * ({@link RestServerConfig}, with the token file's content standing in), with the token in a file
     * (never inline, never unauthenticated) that lies in a volume of a Secret of these manifests with
     * that key; the HTTP probes use a path that needs no token.
     */
    private void checkRestToken(Manifests m) throws IOException {
        Resource jobManagers = m.one("Deployment", JOB_MANAGER);
        Object container = onlyContainer(jobManagers);
        Configuration c = containerConfiguration(m, container);
        String tokenFile = c.get(RestOptions.AUTH_TOKEN_FILE);
        Path standIn = Files.writeString(dir.resolve("token"), "stand-in\n");
        Configuration checked = c.copy();
        if (!tokenFile.isEmpty()) {
            checked.setString(RestOptions.AUTH_TOKEN_FILE.key(), standIn.toString());
        }
        RestServerConfig.fromConfiguration(checked); // refuses 0.0.0.0 without a token, naming the address
        assertThat(c.get(RestOptions.ALLOW_UNAUTHENTICATED)).as("rest.auth.allow-unauthenticated of %s", JOB_MANAGER)
                .isFalse();
        assertThat(c.get(RestOptions.AUTH_TOKEN)).as("rest.auth.token of %s: the token belongs in a Secret, read through"
                + " rest.auth.token-file", JOB_MANAGER).isEmpty();
        assertThat(tokenFile).as("rest.auth.token-file of %s", JOB_MANAGER).isNotEmpty();
        Path file = Path.of(tokenFile);
        Object mount = list(container, "volumeMounts").stream()
                .filter(v -> file.getParent().equals(Path.of(string(v, "mountPath")))).findFirst()
                .orElseThrow(() -> new AssertionError("rest.auth.token-file " + tokenFile + " of " + JOB_MANAGER
                        + " is in no volume mounted in its container"));
        Object volume = list(jobManagers.content(), "spec", "template", "spec", "volumes").stream()
                .filter(v -> string(mount, "name").equals(string(v, "name"))).findFirst().orElseThrow();
        assertThat(at(volume, "secret", "secretName")).as("volume %s holding %s is a Secret", string(volume, "name"), tokenFile)
                .isNotNull();
        Resource secret = m.one("Secret", string(volume, "secret", "secretName"));
        Set<String> keys = new TreeSet<>(map(secret.content(), "stringData").keySet());
        keys.addAll(map(secret.content(), "data").keySet());
        assertThat(keys).as("keys of %s, one of them the file name of rest.auth.token-file %s", secret, tokenFile)
                .contains(file.getFileName().toString());
        for (String probe : List.of("startupProbe", "readinessProbe", "livenessProbe")) {
            assertThat(string(container, probe, "httpGet", "path")).as("%s path of %s: one that needs no token", probe,
                    JOB_MANAGER).isIn(new io.sluice.rest.dashboard.DashboardRoutes().paths());
        }
    }

    /** Container ports equal the configured ports; probes and Services use those ports. */
    private void checkPorts(Manifests m) {
        Configuration c = clusterConfiguration(m);
        Object jobManager = onlyContainer(m.one("Deployment", JOB_MANAGER));
        assertThat(containerPorts(jobManager)).as("container ports of %s against rest.port and jobmanager.rpc.port", JOB_MANAGER)
                .containsEntry("rest", c.get(RestOptions.PORT))
                .containsEntry("rpc", c.get(JobManagerOptions.RPC_PORT));
        for (String probe : List.of("startupProbe", "readinessProbe", "livenessProbe")) {
            Object port = at(jobManager, probe, "httpGet", "port");
            assertThat(port).as("%s of %s: an HTTP probe on the REST API", probe, JOB_MANAGER).isNotNull();
            assertThat(resolvePort(jobManager, port)).as("%s port of %s against rest.port", probe, JOB_MANAGER)
                    .isEqualTo(c.get(RestOptions.PORT));
        }
        Object taskManager = onlyContainer(m.one("Deployment", TASK_MANAGER));
        assertThat(containerPorts(taskManager)).as("container ports of %s against taskmanager.rpc.port and taskmanager.data.port",
                        TASK_MANAGER)
                .containsEntry("rpc", c.get(TaskManagerOptions.RPC_PORT))
                .containsEntry("data", c.get(TaskManagerOptions.DATA_PORT));
        assertThat(resolvePort(taskManager, at(taskManager, "livenessProbe", "tcpSocket", "port")))
                .as("livenessProbe port of %s against taskmanager.rpc.port", TASK_MANAGER)
                .isEqualTo(c.get(TaskManagerOptions.RPC_PORT));
        Resource rest = m.one("Service", REST_SERVICE);
        assertThat(list(rest.content(), "spec", "ports")).as("ports of %s against rest.port", rest)
                .anySatisfy(p -> assertThat(resolvePort(jobManager, at(p, "targetPort"))).isEqualTo(c.get(RestOptions.PORT)));
    }

    /** Every Service and disruption budget selects the pods of a workload, on ports those pods have. */
    private static void checkSelectors(Manifests m) {
        for (Resource s : m.ofKind("Service")) {
            Map<String, Object> selector = map(s.content(), "spec", "selector");
            List<Resource> selected = workloads(m).stream().filter(w -> selects(selector, podLabels(w))).toList();
            assertThat(selected).as("workloads whose pods %s selects with %s", s, selector).isNotEmpty();
            for (Resource w : selected) {
                for (Object p : list(s.content(), "spec", "ports")) {
                    Object target = at(p, "targetPort") != null ? at(p, "targetPort") : at(p, "port");
                    assertThat(containers(w)).as("%s: a container of %s has target port %s", s, w, target)
                            .anySatisfy(c -> assertThat(resolvePort(c, target)).isNotNull());
                }
            }
        }
        for (Resource p : m.ofKind("PodDisruptionBudget")) {
            Map<String, Object> selector = map(p.content(), "spec", "selector", "matchLabels");
            assertThat(workloads(m)).as("workloads that %s selects", p).anySatisfy(w -> assertThat(selects(selector, podLabels(w))).isTrue());
        }
    }

    /** Secret keys and ConfigMaps that pods use exist; SLUICE_CONF_DIR is where the ConfigMap is mounted. */
    private static void checkReferences(Manifests m) {
        for (Resource w : workloads(m)) {
            for (Object c : containers(w)) {
                for (Object env : list(c, "env")) {
                    Object ref = at(env, "valueFrom", "secretKeyRef");
                    if (ref != null) {
                        Resource secret = m.one("Secret", string(ref, "name"));
                        Set<String> keys = new TreeSet<>(map(secret.content(), "stringData").keySet());
                        keys.addAll(map(secret.content(), "data").keySet());
                        assertThat(keys).as("keys of %s used by env %s of %s", secret, string(env, "name"), w)
                                .contains(string(ref, "key"));
                    }
                }
            }
            for (Object volume : list(w.content(), "spec", "template", "spec", "volumes")) {
                if (at(volume, "configMap") != null) {
                    m.one("ConfigMap", string(volume, "configMap", "name"));
                }
            }
        }
        for (Resource w : sluiceWorkloads(m)) {
            Object c = onlyContainer(w);
            assertThat(configMountPath(w, c)).as("%s: SLUICE_CONF_DIR is the mount path of ConfigMap %s", w, CONFIG_MAP)
                    .isEqualTo(envValue(c, "SLUICE_CONF_DIR"));
        }
    }

    /** The Dockerfile: the base image, a non-root user that the pods run as, the entry point, the exposed ports. */
    private void checkDockerfile(String text, Manifests m) {
        Map<String, List<String>> instructions = dockerInstructions(text);
        assertThat(instructions.get("FROM")).as("FROM").containsExactly("eclipse-temurin:17-jre");
        List<String> users = instructions.getOrDefault("USER", List.of("root"));
        String uid = users.get(users.size() - 1).split(":")[0];
        assertThat(uid).as("USER").isNotIn("root", "0").matches("\\d+");
        assertThat(instructions.get("ENTRYPOINT")).as("ENTRYPOINT").containsExactly("[\"/opt/sluice/bin/sluice\"]");
        Configuration c = clusterConfiguration(m);
        Set<Integer> configured = Set.of(c.get(RestOptions.PORT), c.get(JobManagerOptions.RPC_PORT),
                c.get(TaskManagerOptions.RPC_PORT), c.get(TaskManagerOptions.DATA_PORT));
        Set<Integer> exposed = instructions.getOrDefault("EXPOSE", List.of()).stream()
                .flatMap(e -> Stream.of(e.split("\\s+"))).map(p -> Integer.parseInt(p.replace("/tcp", "")))
                .collect(Collectors.toSet());
        assertThat(exposed).as("EXPOSE against rest.port, jobmanager.rpc.port, taskmanager.rpc.port, taskmanager.data.port"
                + " of ConfigMap %s", CONFIG_MAP).isEqualTo(configured);
        for (Resource w : sluiceWorkloads(m)) {
            assertThat(at(w.content(), "spec", "template", "spec", "securityContext", "runAsUser"))
                    .as("%s runs as the image's user", w).hasToString(uid);
        }
    }

    /** Every commented-out entry of the distribution's config file is a known key with its default (or an example, if none). */
    private static void checkDistributionConfig(String text) {
        Map<String, String> entries = commentedEntries(text);
        assertThat(entries).as("commented-out entries of %s", DIST_CONFIG).isNotEmpty();
        Configuration c = validate(entries, DIST_CONFIG.toString());
        List<String> notDefault = new ArrayList<>();
        for (String key : entries.keySet()) {
            ConfigOption<?> option = known.option(key).orElseThrow();
            Object defaultValue = option.defaultValue();
            boolean hasDefault = defaultValue != null && !"".equals(defaultValue);
            if (hasDefault && !defaultValue.equals(c.get(option))) {
                notDefault.add(key + ": " + entries.get(key) + " (default " + defaultValue + ")");
            }
        }
        assertThat(notDefault).as("entries of %s that claim to show the default but do not", DIST_CONFIG).isEmpty();
    }

    // ---- helpers

    private static Manifests shipped() throws IOException {
        return Manifests.load(KUBERNETES);
    }

    /** The shipped manifests with {@code from} replaced by {@code to} in {@code file} ({@code from} must occur). */
    private static Manifests shippedWith(String file, String from, String to) throws IOException {
        List<Map.Entry<String, String>> texts = new ArrayList<>();
        try (Stream<Path> listing = Files.list(KUBERNETES)) {
            for (Path p : listing.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                String text = Files.readString(p);
                if (p.getFileName().toString().equals(file)) {
                    assertThat(text).as("text to break in %s", file).contains(from);
                    text = text.replace(from, to);
                }
                texts.add(Map.entry(p.getFileName().toString(), text));
            }
        }
        return Manifests.parse(texts);
    }

    private static List<Resource> workloads(Manifests m) {
        List<Resource> out = new ArrayList<>(m.ofKind("Deployment"));
        out.addAll(m.ofKind("StatefulSet"));
        return out;
    }

    private static List<Resource> sluiceWorkloads(Manifests m) {
        return List.of(m.one("Deployment", JOB_MANAGER), m.one("Deployment", TASK_MANAGER));
    }

    private static Object onlyContainer(Resource workload) {
        assertThat(containers(workload)).as("containers of %s", workload).hasSize(1);
        return containers(workload).get(0);
    }

    private static List<String> args(Object container) {
        return list(container, "args").stream().map(Object::toString).toList();
    }

    /** The ConfigMap's file as {@code bin/sluice} passes it with {@code --config}: read by the CLI's own loader. */
    private Configuration clusterConfiguration(Manifests m) {
        String file = string(m.one("ConfigMap", CONFIG_MAP).content(), "data", CONFIG_FILE);
        try {
            return ConfigFile.load(Files.writeString(Files.createTempFile(dir, "configmap", ".yaml"), file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The configuration a container starts with: the ConfigMap's file, then its {@code -D key=value}
     * arguments, where {@code $(VAR)} (expanded by Kubernetes from the container's env) must name
     * an env var set from the pod's IP.
     */
    private Configuration containerConfiguration(Manifests m, Object container) {
        Configuration c = clusterConfiguration(m);
        List<String> args = args(container);
        for (int i = 0; i < args.size(); i++) {
            String entry = args.get(i).equals("-D") && i + 1 < args.size() ? args.get(++i)
                    : args.get(i).startsWith("-D") ? args.get(i).substring(2) : null;
            if (entry == null) {
                continue;
            }
            assertThat(entry).as("-D argument of container %s", string(container, "name")).contains("=");
            String key = entry.substring(0, entry.indexOf('='));
            c.setString(key, expandPodIp(container, entry.substring(entry.indexOf('=') + 1)));
        }
        return c;
    }

    private static String expandPodIp(Object container, String value) {
        Matcher reference = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)").matcher(value);
        StringBuilder out = new StringBuilder();
        while (reference.find()) {
            String variable = reference.group(1);
            Object env = list(container, "env").stream().filter(e -> variable.equals(string(e, "name"))).findFirst()
                    .orElseThrow(() -> new AssertionError("$(" + variable + ") in the arguments of container "
                            + string(container, "name") + ", but no env var " + variable + " is defined"));
            assertThat(string(env, "valueFrom", "fieldRef", "fieldPath")).as("env %s of container %s", variable,
                    string(container, "name")).isEqualTo("status.podIP");
            reference.appendReplacement(out, SAMPLE_POD_IP);
        }
        reference.appendTail(out);
        return out.toString();
    }

    private static Map<String, Integer> containerPorts(Object container) {
        Map<String, Integer> ports = new LinkedHashMap<>();
        for (Object p : list(container, "ports")) {
            ports.put(string(p, "name"), (Integer) at(p, "containerPort"));
        }
        return ports;
    }

    /** A probe's or Service's port: a number, or the name of one of the container's ports (null if it has none). */
    private static Integer resolvePort(Object container, Object port) {
        if (port instanceof Integer number) {
            return containerPorts(container).containsValue(number) ? number : null;
        }
        return port == null ? null : containerPorts(container).get(port.toString());
    }

    private static String envValue(Object container, String name) {
        return list(container, "env").stream().filter(e -> name.equals(string(e, "name")))
                .map(e -> string(e, "value")).findFirst().orElse(null);
    }

    private static String configMountPath(Resource workload, Object container) {
        String volume = list(workload.content(), "spec", "template", "spec", "volumes").stream()
                .filter(v -> CONFIG_MAP.equals(string(v, "configMap", "name"))).map(v -> string(v, "name"))
                .findFirst().orElse(null);
        return list(container, "volumeMounts").stream().filter(v -> string(v, "name").equals(volume))
                .map(v -> string(v, "mountPath")).findFirst().orElse(null);
    }

    /** The {@code # key: value} lines of a YAML text. */
    private static Map<String, String> commentedEntries(String text) {
        Map<String, String> entries = new LinkedHashMap<>();
        for (String line : text.lines().toList()) {
            Matcher m = COMMENTED_ENTRY.matcher(line);
            if (m.matches()) {
                assertThat(entries.put(m.group(1), m.group(2))).as("%s appears once", m.group(1)).isNull();
            }
        }
        return entries;
    }

    private static Configuration validate(Map<String, String> entries, String where) {
        Configuration c = new Configuration(entries);
        try {
            ConfigurationValidator.validate(c, known);
        } catch (RuntimeException e) {
            throw new AssertionError("In " + where + ": " + e.getMessage(), e);
        }
        return c;
    }

    /** Dockerfile instructions (continuation lines joined, comments dropped) by name, in order. */
    private static Map<String, List<String>> dockerInstructions(String text) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        String joined = text.lines().filter(l -> !l.strip().startsWith("#")).collect(Collectors.joining("\n"))
                .replaceAll("\\\\\\n", " ");
        for (String line : joined.lines().map(String::strip).filter(l -> !l.isEmpty()).toList()) {
            String[] parts = line.split("\\s+", 2);
            out.computeIfAbsent(parts[0].toUpperCase(), k -> new ArrayList<>()).add(parts.length > 1 ? parts[1].strip() : "");
        }
        return out;
    }
}
