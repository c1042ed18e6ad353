def get(url):
    return request("get", url)
def request(method, url):
    raise NotImplementedError(method)
TIMEOUT = 10
