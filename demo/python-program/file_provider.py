"""The sample Python dynamic provider the demo walks through its lifecycle: it
manages a text file. Run as a script in the test virtualenv, it prints the
`__provider` payload made by the SDK's own serialize_provider, exactly as
`pulumi.dynamic.Resource(FileProvider(), ...)` would in a program."""
import os

from pulumi.dynamic import CheckFailure, CheckResult, CreateResult, DiffResult, ReadResult, ResourceProvider, UpdateResult
from pulumi.dynamic.dynamic import serialize_provider


class FileProvider(ResourceProvider):
    def check(self, olds, news):
        failures = []
        if not isinstance(news.get("path"), str) or not news.get("path"):
            failures.append(CheckFailure("path", "path must be a non-empty string"))
        return CheckResult(dict(news, content=news.get("content", "")), failures)

    def diff(self, id, olds, news):
        changes = olds.get("path") != news.get("path") or olds.get("content") != news.get("content")
        return DiffResult(changes=changes, replaces=["path"] if olds.get("path") != news.get("path") else [], delete_before_replace=False)

    def create(self, inputs):
        with open(inputs["path"], "w") as f:
            f.write(inputs["content"])
        print(f"wrote {len(inputs['content'])} bytes to {inputs['path']}")
        return CreateResult(inputs["path"], {"path": inputs["path"], "content": inputs["content"], "size": len(inputs["content"])})

    def read(self, id, props):
        if not os.path.exists(id):
            return ReadResult("", {})
        with open(id) as f:
            content = f.read()
        return ReadResult(id, dict(props, content=content, size=len(content)), {"path": id, "content": content})

    def update(self, id, olds, news):
        with open(news["path"], "w") as f:
            f.write(news["content"])
        return UpdateResult({"path": news["path"], "content": news["content"], "size": len(news["content"])})

    def delete(self, id, props):
        if os.path.exists(id):
            os.remove(id)


if __name__ == "__main__":
    print(serialize_provider(FileProvider()))
