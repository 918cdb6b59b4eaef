// Against lode serve --standalone: hello carries no replica-set identity.
const h = db.hello();
if (h.setName !== undefined) throw new Error("setName under --standalone: " + tojson(h.setName));
print("standalone OK");
