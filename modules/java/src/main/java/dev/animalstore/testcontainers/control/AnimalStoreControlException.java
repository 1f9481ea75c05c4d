package dev.animalstore.testcontainers.control;

import com.fasterxml.jackson.databind.JsonNode;

/** A control API call the sandbox refused, with the HTTP status and the {@code code} and {@code message} of its Error body. */
public class AnimalStoreControlException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;

    private final String code;

    private final String errorMessage;

    AnimalStoreControlException(String request, int status, String body) {
        this(request, status, errorBody(body));
    }

    private AnimalStoreControlException(String request, int status, JsonNode error) {
        super(request + " answered " + status + " " + error.path("code").asText("unknown") + ": " + error.path("message").asText());
        this.status = status;
        this.code = error.path("code").asText("unknown");
        this.errorMessage = error.path("message").asText();
    }

    /** The Error body, or (a proxy's page, say) one whose message is the whole body. */
    private static JsonNode errorBody(String body) {
        try {
            JsonNode error = NamespaceControl.JSON.readTree(body);
            if (error.has("code")) {
                return error;
            }
        } catch (Exception notJson) {
            // The body itself is the message.
        }
        return NamespaceControl.JSON.createObjectNode().put("message", body);
    }

    /** The HTTP status, e.g. 400. */
    public int status() {
        return status;
    }

    /** The Error body's code, e.g. {@code invalid_body}; {@code unknown} when the body was no Error. */
    public String code() {
        return code;
    }

    /** The Error body's message (the whole body when it was no Error). */
    public String errorMessage() {
        return errorMessage;
    }
}
