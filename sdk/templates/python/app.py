import vcc_sdk


class {{type}}(vcc_sdk.Validator):
    name = "{{name}}"
    summary = "target files contain no TODO"

    def validate(self, criterion):
        found = [vcc_sdk.Finding("TODO left in", path=p, line=n)
                 for p in criterion.paths
                 for n, text in enumerate(vcc_sdk.read_text(p).splitlines(), 1)
                 if "TODO" in text]
        if found:
            return vcc_sdk.failed(f"{len(found)} TODO(s)", found)
        return vcc_sdk.passed("no TODO")


Validator = vcc_sdk.export({{type}})
