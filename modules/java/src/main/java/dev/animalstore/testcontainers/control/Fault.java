package dev.animalstore.testcontainers.control;

/**
 * An armed fault: the {@link NewFault} fields, its id, and how it has fared.
 *
 * @param seen the matching calls so far
 * @param fired the calls it has acted on
 */
public record Fault(
    long id,
    String operationId,
    Integer status,
    Integer delayMs,
    FaultKind fault,
    Integer times,
    Integer after,
    int seen,
    int fired
) {}
