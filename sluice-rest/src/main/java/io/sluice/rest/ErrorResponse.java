package io.sluice.rest;

/** The body of every error answer: what went wrong and what to do, and the HTTP status again. */
public record ErrorResponse(String error, int status) {
}
