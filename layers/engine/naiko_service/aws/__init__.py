""":mod:`naiko_service.aws` holds the AWS adapters of the ports: DynamoDB (tables, accounts,
connections), the API Gateway Management API (pushing messages) and Step Functions (timers).

Every adapter receives its low-level boto3 client ready-made (nothing is built at import), and
turns infrastructure errors into the port errors of :mod:`naiko_service.ports`.
"""

from .dynamodb import DynamoAccounts, DynamoConnections, DynamoTableStore, dynamodb_item_size
from .gateway import ManagementApiGateway
from .scheduler import StepFunctionsScheduler, execution_input, execution_name

__all__ = [
    "DynamoAccounts",
    "DynamoConnections",
    "DynamoTableStore",
    "ManagementApiGateway",
    "StepFunctionsScheduler",
    "dynamodb_item_size",
    "execution_input",
    "execution_name",
]
