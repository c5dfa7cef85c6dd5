/**
 * The exactly-once file sink on S3 ({@link io.sluice.storage.s3.sink.S3ExactlyOnceFileSink}): part files
 * written as multipart uploads, visible only when the committer completes the upload after the checkpoint
 * that covers them completed.
 *
 * <p>Above {@code io.sluice.storage.s3} in this module (it reads {@link io.sluice.storage.s3.S3Options});
 * besides the AWS SDK it uses only sluice-core's API ({@code api.sink}, {@code api.functions},
 * {@code config}, {@code core.serialization}, {@code util}), never the runtime's packages, since its
 * classes run inside a job's tasks. The module's architecture test checks both.
 */
package io.sluice.storage.s3.sink;
