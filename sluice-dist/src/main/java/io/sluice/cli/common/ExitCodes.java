package io.sluice.cli.common;

/** Exit codes of the {@code sluice} commands, as documented in {@code docs/cli.md}. */
public final class ExitCodes {
    /** The command did what it was asked; for {@code demo}: every key's count was exact. */
    public static final int OK = 0;
    /** The demo job finished but at least one key's final count differs from the expected count. */
    public static final int VERIFICATION_FAILED = 1;
    /** The job was rejected at submission, or ended FAILED or CANCELED (including a demo that hit its --timeout). */
    public static final int JOB_FAILED = 2;
    /** Invalid command line: unknown command or option, or an option value out of range (sysexits EX_USAGE). */
    public static final int USAGE = 64;
    /** The cluster refused the request as invalid, e.g. a jar over the upload limit (sysexits EX_DATAERR). */
    public static final int REFUSED = 65;
    /** The job, the jar id, or the local jar file does not exist (sysexits EX_NOINPUT). */
    public static final int NOT_FOUND = 66;
    /** The cluster cannot be reached or did not answer in time (sysexits EX_UNAVAILABLE). */
    public static final int UNAVAILABLE = 69;
    /** An unexpected error in the command itself (sysexits EX_SOFTWARE); the stack trace is printed. */
    public static final int INTERNAL_ERROR = 70;
    /** The cluster refused the bearer token (missing or wrong {@code --token}) (sysexits EX_NOPERM). */
    public static final int NO_PERMISSION = 77;

    /**
     * {@code sluice jobmanager}: a setting every job manager of the cluster must share differs from the
     * leading job manager's (e.g. {@code high-availability.storage-dir}) (sysexits EX_CONFIG).
     */
    public static final int CONFIG_MISMATCH = 78;

    private ExitCodes() {}
}
