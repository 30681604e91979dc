import Foundation

@testable import StepUp

/// The examples of Signicat's "Integrate ready-made step-up flows" page
/// (docs/architecture.md §8.1), with the page's
/// placeholders (`<TOKEN>`, `<signicatOperation>`) filled with generated values.
enum Seeds {
    /// "Example: Start step-up request body" — note the deviceId is not a UUID.
    static let startRequest = """
        {
          "userId": "a1e26081-35b4-4557-a46a-ef50bc91672f",
          "deviceId": "b1g73121-55c4-9238-l39j-ek60dc91872g",
          "provider": "signicatvideoid",
          "videoidProviderOptions": {
            "docTypes": [138, 169, 147, 245, 277],
            "defaultId": 138
          }
        }
        """

    static let token = "sut_eyJhbGciOiJub25lIn0.c3RlcC11cC10b2tlbi1zZWNyZXQ.x9"

    /// "Example: Signicat operation object for VideoID" (`<TOKEN>` filled in).
    static let videoIDOperation = """
        {
          "signicatOperation": {
            "version": "1",
            "operation": "authentication",
            "provider": "signicatvideoid",
            "token": "\(token)",
            "url": "https://etrust-sandbox.electronicid.eu/v2",
            "processType": "substantial",
            "processId": "0dca14cf-957d-46d9-b374-520f9c650859",
            "videoidProviderOptions": {
              "docType": 1,
              "docTypes": [1, 2, 3],
              "defaultId": 1
            }
          }
        }
        """

    /// The pre-operation object carries only operation, provider and processType [doc].
    static let preOperation = """
        {"signicatOperation": {"operation": "authentication", "provider": "signicatvideoid", "processType": "substantial"}}
        """

    /// "Example: Pre-operation context" with `<signicatOperation>` = base64 of the pre-operation object.
    static var preOperationContext: String {
        """
        {
          "pre_operation_context" : {
            "context_content_b64": "\(Data(preOperation.utf8).base64EncodedString())",
            "context_mime": "application/json"
          }
        }
        """
    }

    /// "Example: Post-operation context" with `<signicatOperation>` = base64 of the VideoID object.
    static var postOperationContext: String { postContext(videoIDOperation) }

    static func postContext(_ operationJSON: String, mime: String = "application/json") -> String {
        """
        {"post_operation_context": {"context_content_b64": "\(Data(operationJSON.utf8).base64EncodedString())",
                                     "context_mime": "\(mime)"}}
        """
    }

    /// "Example: Request to get VideoID authorisation token" (body).
    static let videoIDRequest = #"{"process": "Unattended"}"#

    /// "Example: Response with VideoID authorisation token".
    static let videoIDResponse = """
        {
        "id": "87a819bd-9419-417a-9e55-cab8789d4115",
        "authorization": "<authorisationToken>"
        }
        """

    /// A ReadID operation object (same shape, provider readid), pointing at `url`.
    static func readIDOperation(
        url: String = "https://readid.example.test/odata/v1",
        processId: String = "0dca14cf-957d-46d9-b374-520f9c650859",
        extra: String = ""
    ) -> String {
        """
        {"signicatOperation": {"version": "1", "operation": "authentication", "provider": "readid",
         "token": "\(token)", "url": "\(url)", "processType": "substantial", "processId": "\(processId)"\(extra)}}
        """
    }

    /// The VideoID object with its `url` replaced.
    static func videoIDOperation(url: String) -> String {
        videoIDOperation.replacingOccurrences(of: "https://etrust-sandbox.electronicid.eu/v2", with: url)
    }

    /// Parses JSON text for comparisons (key order and whitespace do not matter).
    static func json(_ s: String) throws -> JSONValue { try JSONValue.parse(Data(s.utf8)) }

    static func json(_ d: Data) throws -> JSONValue { try JSONValue.parse(d) }
}
