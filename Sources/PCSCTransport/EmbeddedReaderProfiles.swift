let embeddedReadersJSON = """
{"schema": "emrtd.readers/1", "readers": []}
"""
