<%@ page contentType="text/html;charset=UTF-8" %>
<%@ taglib prefix="c" uri="jakarta.tags.core" %>
<%@ taglib prefix="fn" uri="jakarta.tags.functions" %>
<html>
<head><title>Search appointments</title></head>
<body>
<form method="get" action="search">
  <input type="text" name="q" value="${fn:escapeXml(param.q)}">
  <button type="submit">Search</button>
</form>
<h2>Results for <%= request.getParameter("q") %></h2>
<ul>
  <c:forEach var="a" items="${results}">
    <li><c:out value="${a.startsAt}"/> &mdash; <c:out value="${a.reason}"/></li>
  </c:forEach>
</ul>
<c:if test="${empty results}">
  <p>No appointments matched.</p>
</c:if>
</body>
</html>
