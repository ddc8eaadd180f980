/** An answer of the service: status, body text and headers of its own. */
export interface ApiResponse {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** A request the service refuses with 400 and this message. */
export class BadRequest extends Error {}

/** An error answer: the service's error bodies are `{"message": ...}`. */
export const errorResponse = (status: number, message: string, headers?: Record<string, string>): ApiResponse => ({
  status,
  body: JSON.stringify({ message }),
  headers,
});
