"""The Naiko terminal client: ``naiko-client URL TOKEN [--table TABLE_ID] [--buy-in N]``.

:mod:`naiko_client.render` turns a table view (the ``view`` of a ``snapshot`` or ``update``,
``docs/protocol.md``) into screen text; :mod:`naiko_client.app` speaks the WebSocket protocol and
reads commands from the keyboard. The client needs only the standard library and ``websockets``:
it never imports the engine or the service, it knows the table only through the protocol.
"""
