package dev.animalstore.testcontainers.control;

/**
 * A fault to arm with addFault: on the calls of {@code operationId}, it lets the first {@code after} pass, then
 * acts on the next {@code times} (every one when null). Start from {@link #on(String)}; null fields are not sent.
 *
 * @param status answer with this status (400 to 599) and the Error body
 * @param delayMs wait this long before answering (0 to 30000)
 * @param fault answer brokenly instead
 */
public record NewFault(String operationId, Integer status, Integer delayMs, FaultKind fault, Integer times, Integer after) {

    /** A fault on the calls of this operation of the Animal Store API, e.g. {@code listPets}. */
    public static NewFault on(String operationId) {
        return new NewFault(operationId, null, null, null, null, null);
    }

    public NewFault withStatus(int status) {
        return new NewFault(operationId, status, delayMs, fault, times, after);
    }

    public NewFault withDelayMs(int delayMs) {
        return new NewFault(operationId, status, delayMs, fault, times, after);
    }

    public NewFault withFault(FaultKind fault) {
        return new NewFault(operationId, status, delayMs, fault, times, after);
    }

    public NewFault withTimes(int times) {
        return new NewFault(operationId, status, delayMs, fault, times, after);
    }

    public NewFault withAfter(int after) {
        return new NewFault(operationId, status, delayMs, fault, times, after);
    }
}
